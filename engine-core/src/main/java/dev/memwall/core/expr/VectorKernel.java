package dev.memwall.core.expr;

import dev.memwall.core.vector.Column;

/**
 * What every value kernel shares: per-position null flags and evaluation at most once per chunk
 * state ({@link Chunk#serial()}), so a subexpression with several parents costs one pass.
 *
 * <p>Thread safety: none; every worker thread binds its own kernels.
 */
abstract sealed class VectorKernel permits LongKernel, DoubleKernel {
  protected final boolean[] nulls = new boolean[Chunk.CAPACITY];
  protected boolean anyNull;
  private Chunk lastChunk;
  private long lastSerial;

  /** Computes for {@code chunk} unless its current state was computed last. */
  final void computeOnce(Chunk chunk) {
    if (chunk != lastChunk || chunk.serial() != lastSerial) {
      compute(chunk);
      lastChunk = chunk;
      lastSerial = chunk.serial();
    }
  }

  /** After evaluation: whether any selected value is null. */
  public final boolean anyNull() {
    return anyNull;
  }

  /** After evaluation: null flags by position, meaningful only when {@link #anyNull()}. */
  public final boolean[] nulls() {
    return nulls;
  }

  /** Marks as null the selected rows where {@code left} or {@code right} (may be null) is null. */
  final void unionNulls(Chunk chunk, VectorKernel left, VectorKernel right) {
    boolean leftNull = left.anyNull;
    boolean rightNull = right != null && right.anyNull;
    anyNull = leftNull || rightNull;
    if (anyNull) {
      for (int i = 0; i < chunk.selected(); i++) {
        int k = chunk.position(i);
        nulls[k] = (leftNull && left.nulls[k]) || (rightNull && right.nulls[k]);
      }
    }
  }

  /**
   * Reads {@code column}'s null flags at the chunk's selected rows into this kernel's (a column
   * reader's); a column without nulls costs no pass.
   */
  final void readNulls(Chunk chunk, Column column) {
    anyNull = false;
    if (column.hasNulls()) {
      int start = chunk.start();
      int selected = chunk.selected();
      for (int i = 0; i < selected; i++) {
        int k = chunk.position(i);
        boolean isNull = column.isNull(start + k);
        nulls[k] = isNull;
        anyNull |= isNull;
      }
    }
  }

  /** Copies {@code source}'s null flags at {@code rows} (a CASE branch's) into this kernel's. */
  final void copyNulls(VectorKernel source, int[] rows, int n) {
    for (int i = 0; i < n; i++) {
      int k = rows[i];
      nulls[k] = source.anyNull && source.nulls[k];
    }
    anyNull |= source.anyNull;
  }

  /** Fills the values (and {@link #nulls}, {@link #anyNull}) at every selected position. */
  protected abstract void compute(Chunk chunk);
}
