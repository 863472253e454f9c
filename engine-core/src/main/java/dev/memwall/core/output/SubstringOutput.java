package dev.memwall.core.output;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.ScratchBatch;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.core.vector.VarCharColumn;
import org.apache.arrow.vector.VarCharVector;

/**
 * A SUBSTRING of a string column of the input (plain or dictionary codes), copied into a table as
 * strings; a scratch batch cannot hold it (its strings are codes into existing strings, see
 * {@link OutputColumn.Target}). A contract as {@link OutputColumn}'s.
 */
final class SubstringOutput implements OutputColumn {
  private final int index;
  private final Expr.Substring substring;
  private Column strings;

  SubstringOutput(int index, Expr.Substring substring) {
    this.index = index;
    this.substring = substring;
  }

  @Override
  public ColumnType type() {
    return ColumnType.STRING;
  }

  @Override
  public void evaluate(Chunk chunk) {
    strings = chunk.batch().column(index);
  }

  @Override
  public void writeSelected(Chunk chunk, int from, int rows, TableBuilder builder, int column, int at) {
    if (!(builder.vector(column) instanceof VarCharVector v)) {
      throw new IllegalStateException("no SUBSTRING output into " + builder.vector(column).getField());
    }
    Column source = strings;
    for (int i = 0; i < rows; i++) {
      copy(source, chunk.start() + chunk.position(from + i), v, at + i);
    }
  }

  /** Writes the substring of {@code source}'s row {@code row} (null stays null) to {@code target[index]}. */
  private void copy(Column source, int row, VarCharVector target, int at) {
    if (source.isNull(row)) {
      target.setNull(at);
      return;
    }
    VarCharColumn values;
    int entry;
    if (source instanceof DictionaryColumn codes) {
      values = codes.dictionary();
      entry = codes.code(row);
    } else if (source instanceof VarCharColumn plain) {
      values = plain;
      entry = row;
    } else {
      throw new IllegalStateException("column " + index + " is not a string column: " + source.type());
    }
    int offset = values.offset(entry);
    long range = substring.byteRange(values.bytes(), offset, values.byteLength(entry));
    target.setSafe(at, offset + (int) (range >>> 32), (int) range, values.arrow().getDataBuffer());
  }

  @Override
  public void writePositions(Chunk chunk, int[] positions, int count, ScratchBatch out, int column,
      VarCharColumn[] dictionaries) {
    throw new IllegalStateException("a scratch batch holds codes into existing strings, not the computed " + substring
        + "; bind it for a table");
  }
}
