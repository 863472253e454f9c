package dev.memwall.join.algorithm;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.HashedTuples;
import dev.memwall.join.keys.KeyColumns;
import java.lang.foreign.ValueLayout;

/**
 * A small, cache-resident block of (hash, row id) tuples that a non-partitioned join streams an
 * input through, {@link #ROWS} rows at a time, so that the input is never copied whole.
 *
 * <p>Ownership: closes its buffers. Thread safety: one thread.
 */
final class ProbeBlock implements AutoCloseable {
  /** Rows per block: 12 KiB of tuples, well inside the L1 cache. */
  static final int ROWS = 1024;

  final HashedTuples tuples;
  private final OffHeapBuffer nulls;
  private int keyed;
  private int nullCount;

  ProbeBlock(EngineMemory memory) {
    this.tuples = HashedTuples.allocate(memory, ROWS, Placement.DEFAULT);
    try {
      this.nulls = memory.allocate((long) ROWS * Integer.BYTES);
    } catch (RuntimeException e) {
      tuples.close();
      throw e;
    }
  }

  static long bytes() {
    return HashedTuples.bytesFor(ROWS) + (long) ROWS * Integer.BYTES;
  }

  /** Extracts rows {@code [from, min(from + ROWS, batchRows))} of {@code batch}; returns the keyed count. */
  int fill(KeyColumns side, int batch, int from) {
    int to = Math.min(from + ROWS, side.batchRows(batch));
    long packed = side.extract(batch, from, to, tuples.hashes(), tuples.rows(), 0, nulls.segment(), 0);
    keyed = (int) packed;
    nullCount = (int) (packed >>> 32);
    return keyed;
  }

  int keyed() {
    return keyed;
  }

  /** Emits this block's null-key rows as unmatched where the join type reports them. */
  void emitNullRows(JoinInput input, JoinOutput out) {
    if (nullCount > 0 && input.type().reportsUnmatched()) {
      for (int i = 0; i < nullCount; i++) {
        out.emit(nulls.segment().getAtIndex(ValueLayout.JAVA_INT, i), dev.memwall.join.common.JoinIndex.NO_ROW);
      }
    }
  }

  @Override
  public void close() {
    tuples.close();
    nulls.close();
  }
}
