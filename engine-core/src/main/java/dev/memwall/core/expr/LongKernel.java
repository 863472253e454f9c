package dev.memwall.core.expr;

import dev.memwall.core.vector.ColumnType;

/**
 * A compiled integral expression (INT32, INT64, DATE or DECIMAL, all as {@code long}): computes
 * one value per selected row of a {@link Chunk} into a reusable vector.
 *
 * <p>{@link #evaluate} computes at most once per chunk state ({@link Chunk#serial()}), so a
 * subexpression shared by several parents costs one pass. Arithmetic is exact: overflow throws
 * {@link ArithmeticException} instead of wrapping.
 *
 * <p>Thread safety: none; every worker thread binds its own kernels.
 */
public abstract non-sealed class LongKernel extends VectorKernel {
  protected final long[] values = new long[Chunk.CAPACITY];
  private final ColumnType type;

  protected LongKernel(ColumnType type) {
    if (!type.isIntegral()) {
      throw new IllegalArgumentException("not an integral type: " + type);
    }
    this.type = type;
  }

  /** The type of the values; for DECIMAL its scale says how to read them. */
  public final ColumnType type() {
    return type;
  }

  /**
   * The values at the selected positions of {@code chunk} (indexed by position {@code k}); the
   * array is reused by the next evaluation.
   */
  public final long[] evaluate(Chunk chunk) {
    computeOnce(chunk);
    return values;
  }
}
