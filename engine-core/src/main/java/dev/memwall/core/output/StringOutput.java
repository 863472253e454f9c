package dev.memwall.core.output;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.DictionaryEncoder;
import dev.memwall.core.vector.ScratchBatch;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.core.vector.VarCharColumn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * A string column of the input, plain or dictionary codes. Into a table its strings are copied, or
 * its codes written as codes of the table's dictionary where the table encodes the column; into a
 * scratch batch it writes codes into the strings it came from (a plain column's row numbers, or
 * its dictionary's codes). A contract as {@link OutputColumn}'s.
 */
final class StringOutput implements OutputColumn {
  private final int index;
  private final boolean dictionaryEncoded;
  private Column strings;

  StringOutput(Binder binder, Expr.ColumnRef ref) {
    this.index = binder.columnIndex(ref);
    this.dictionaryEncoded = binder.schema().getFields().get(index).getDictionary() != null;
  }

  @Override
  public ColumnType type() {
    return ColumnType.STRING;
  }

  @Override
  public boolean dictionaryEncoded() {
    return dictionaryEncoded;
  }

  @Override
  public void evaluate(Chunk chunk) {
    strings = chunk.batch().column(index);
  }

  @Override
  public boolean codesFit(DictionaryEncoder encoder) {
    return strings instanceof DictionaryColumn codes && encoder.accepts(codes.dictionary(), DictionaryEncoder.MAX_ENTRIES);
  }

  @Override
  public void writeSelected(Chunk chunk, int from, int rows, TableBuilder builder, int column, int at) {
    DictionaryEncoder encoder = builder.encoder(column);
    FieldVector target = builder.vector(column);
    if (encoder != null && strings instanceof DictionaryColumn codes && target instanceof IntVector v) {
      writeCodes(codes, encoder, v, chunk, from, rows, at);
    } else if (encoder == null && target instanceof VarCharVector v) {
      Column source = strings;
      for (int i = 0; i < rows; i++) {
        TableBuilder.copyString(source, chunk.start() + chunk.position(from + i), v, at + i);
      }
    } else {
      throw new IllegalStateException("no string output of " + strings.getClass().getSimpleName() + " into "
          + target.getField() + (encoder != null ? " (encoded)" : ""));
    }
  }

  /** Codes of {@code codes}' selected rows {@code [from, from + rows)} as codes of {@code encoder}, from {@code at} on. */
  private static void writeCodes(DictionaryColumn codes, DictionaryEncoder encoder, IntVector target, Chunk chunk,
      int from, int rows, int at) {
    int start = chunk.start();
    boolean anyNull = codes.hasNulls();
    VarCharColumn dictionary = codes.dictionary();
    if (encoder.copiesCodesOf(dictionary)) {
      for (int i = 0; i < rows; i++) {
        int row = start + chunk.position(from + i);
        if (anyNull && codes.isNull(row)) {
          target.setNull(at + i);
        } else {
          TableBuilder.setInt32(target, at + i, codes.code(row));
        }
      }
      return;
    }
    for (int i = 0; i < rows; i++) {
      int row = start + chunk.position(from + i);
      int code = anyNull && codes.isNull(row) ? -1 : encoder.code(dictionary, codes.code(row));
      if (code < 0) {
        target.setNull(at + i);
      } else {
        TableBuilder.setInt32(target, at + i, code);
      }
    }
  }

  @Override
  public void writePositions(Chunk chunk, int[] positions, int count, ScratchBatch out, int column,
      VarCharColumn[] dictionaries) {
    MemorySegment target = out.values(column);
    out.clearNulls(column, count);
    int start = chunk.start();
    switch (strings) {
      case DictionaryColumn codes -> {
        for (int i = 0; i < count; i++) {
          target.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, codes.code(start + positions[i]));
        }
        dictionaries[column] = codes.dictionary();
      }
      case VarCharColumn plain -> {
        for (int i = 0; i < count; i++) {
          target.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, start + positions[i]);
        }
        dictionaries[column] = plain;
      }
      default -> throw new IllegalStateException("column " + index + " is not a string column: " + strings.type());
    }
    if (strings.hasNulls()) {
      for (int i = 0; i < count; i++) {
        if (strings.isNull(start + positions[i])) {
          out.setNull(column, i);
        }
      }
    }
  }
}
