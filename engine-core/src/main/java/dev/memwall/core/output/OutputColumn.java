package dev.memwall.core.output;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryEncoder;
import dev.memwall.core.vector.ScratchBatch;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.core.vector.VarCharColumn;

/**
 * A projected output column bound over one worker's input: an integral or FLOAT64 expression (its
 * kernel), a string column, or a SUBSTRING of a string column. Per chunk, {@link #evaluate} computes
 * (or looks up) the column's values once; then the rows asked for are written either into a
 * {@link TableBuilder}'s vector ({@link #writeSelected}: a pipeline's collected rows) or into a
 * {@link ScratchBatch} column by a row map ({@link #writePositions}: a join probe's pairs). Each
 * implementation writes in loops of its own value type, so a writer calls it once per column and
 * chunk, never per value.
 *
 * <p>Ownership: holds no memory of its own; the values of the last {@link #evaluate} are the
 * kernel's scratch or the chunk's batch, valid until the next evaluation or until the batch is
 * released. Thread safety: none, one per worker (the kernels carry per-thread scratch state, as
 * {@link Binder}'s do).
 */
public sealed interface OutputColumn permits IntegralOutput, DoubleOutput, StringOutput, SubstringOutput {

  /** Where a column's rows go, which decides what a string output may be. */
  enum Target {
    /**
     * The vectors of a {@link TableBuilder}: strings are copied, so a string output is a string
     * column or a SUBSTRING of one.
     */
    TABLE,
    /**
     * A {@link ScratchBatch}, whose string columns are codes into the strings of the batch the rows
     * came from: a string output is a string column, nothing computed (a join probe's output).
     */
    SCRATCH_BATCH
  }

  /**
   * Binds {@code column} with {@code binder} (that of the chunks the column is evaluated over) for
   * {@code target}: a STRING column as a string column or its SUBSTRING, FLOAT64 as a double
   * kernel, every other type as an integral kernel.
   *
   * @throws IllegalArgumentException for an expression {@code binder} does not type or bind (naming
   *     it), or a string expression {@code target} cannot hold: for a table, anything but a column
   *     or a SUBSTRING of one; for a scratch batch, anything but a column (to be projected after
   *     the join instead)
   */
  static OutputColumn bind(Binder binder, NamedExpr column, Target target) {
    Expr expr = column.expr();
    ColumnType type = binder.typeOf(expr);
    return switch (type.kind()) {
      case STRING -> switch (expr) {
        case Expr.ColumnRef ref -> new StringOutput(binder, ref);
        case Expr.Substring sub when target == Target.TABLE ->
            new SubstringOutput(binder.columnIndex(requireColumn(sub.input())), sub);
        default -> throw new IllegalArgumentException(target == Target.TABLE
            ? "string outputs must be columns or their SUBSTRINGs, not " + expr
            : "a join carries string columns, not the expression " + expr + " named '" + column.name()
                + "'; project it after the join");
      };
      case FLOAT64 -> new DoubleOutput(binder.bindDouble(expr));
      default -> new IntegralOutput(binder.bindLong(expr));
    };
  }

  /** The type of the column's values. */
  ColumnType type();

  /**
   * Whether the column is a string column whose input is dictionary-encoded, so that a table may
   * collect it as codes ({@link TableBuilder}'s encoded columns); false for every other kind.
   */
  default boolean dictionaryEncoded() {
    return false;
  }

  /** Computes (or looks up) the column's values at the selected positions of {@code chunk}. */
  void evaluate(Chunk chunk);

  /**
   * Whether the chunk last {@linkplain #evaluate evaluated} holds codes that {@code encoder} takes
   * as they are or translated ({@link DictionaryEncoder#accepts} within
   * {@link DictionaryEncoder#MAX_ENTRIES}); false for plain strings and every other kind.
   */
  default boolean codesFit(DictionaryEncoder encoder) {
    return false;
  }

  /**
   * Writes the values of selected rows {@code [from, from + rows)} of {@code chunk} (last
   * {@linkplain #evaluate evaluated}) into {@code builder}'s vector of column {@code column} from
   * row {@code at} on, nulls as nulls, after {@link TableBuilder#reserveRows}; a string column
   * {@code builder} encodes is written as codes of its {@linkplain TableBuilder#encoder encoder}.
   *
   * @throws ArithmeticException if an integral value does not fit a 4-byte vector
   * @throws IllegalStateException if the vector does not hold this column's type
   */
  void writeSelected(Chunk chunk, int from, int rows, TableBuilder builder, int column, int at);

  /**
   * Writes the values of chunk positions {@code positions[0, count)} of {@code chunk} (last
   * {@linkplain #evaluate evaluated}) into rows {@code [0, count)} of {@code out}'s column
   * {@code column}, clearing its nulls first and marking the null rows; a string column's rows are
   * codes into the strings it stores in {@code dictionaries[column]} for {@link ScratchBatch#publish}.
   *
   * @throws IllegalStateException for a SUBSTRING, which only a table holds (see {@link Target})
   */
  void writePositions(Chunk chunk, int[] positions, int count, ScratchBatch out, int column,
      VarCharColumn[] dictionaries);

  private static Expr.ColumnRef requireColumn(Expr expr) {
    if (expr instanceof Expr.ColumnRef ref) {
      return ref;
    }
    throw new IllegalArgumentException("string outputs must be columns or their SUBSTRINGs, not " + expr);
  }
}
