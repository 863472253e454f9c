package dev.memwall.core.expr;

/**
 * A compiled FLOAT64 expression; the same contract as {@link LongKernel} with {@code double}
 * values.
 */
public abstract class DoubleKernel {
  protected final double[] values = new double[Chunk.CAPACITY];
  protected final boolean[] nulls = new boolean[Chunk.CAPACITY];
  protected boolean anyNull;
  private Chunk lastChunk;
  private long lastSerial;

  /** The values at the selected positions of {@code chunk}; reused by the next evaluation. */
  public final double[] evaluate(Chunk chunk) {
    if (chunk != lastChunk || chunk.serial() != lastSerial) {
      compute(chunk);
      lastChunk = chunk;
      lastSerial = chunk.serial();
    }
    return values;
  }

  /** After {@link #evaluate}: whether any selected value is null. */
  public final boolean anyNull() {
    return anyNull;
  }

  /** After {@link #evaluate}: null flags by position, meaningful only when {@link #anyNull()}. */
  public final boolean[] nulls() {
    return nulls;
  }

  /** Fills {@link #values} (and {@link #nulls}, {@link #anyNull}) at every selected position. */
  protected abstract void compute(Chunk chunk);
}
