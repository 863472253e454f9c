package dev.memwall.core.expr;

/**
 * A compiled FLOAT64 expression; the same contract as {@link LongKernel} with {@code double}
 * values.
 */
public abstract non-sealed class DoubleKernel extends VectorKernel {
  protected final double[] values = new double[Chunk.CAPACITY];

  /** The values at the selected positions of {@code chunk}; reused by the next evaluation. */
  public final double[] evaluate(Chunk chunk) {
    computeOnce(chunk);
    return values;
  }
}
