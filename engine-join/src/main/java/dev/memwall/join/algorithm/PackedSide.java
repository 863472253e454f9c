package dev.memwall.join.algorithm;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.PackedRadixCluster;
import dev.memwall.core.partition.PackedSource;
import dev.memwall.core.partition.PackedTuples;
import dev.memwall.core.partition.RadixCluster;
import dev.memwall.core.partition.RadixPlan;
import dev.memwall.join.keys.KeyColumns;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One input with a key of one int32 column, radix-clustered as {@link PackedTuples} (key, row id)
 * straight from its key column: {@link PackedRadixCluster}'s first pass reads the column block by
 * block ({@link #fill}), so the input is never extracted whole before clustering. The 8-byte-tuple
 * counterpart of {@link HashedSide}; the row ids of null keys are kept on the side when asked.
 *
 * <p>Ownership: closes every buffer it allocated. Thread safety: {@link #fill} is safe for different
 * blocks; the rest is for one thread.
 */
final class PackedSide implements PackedSource, AutoCloseable {
  private final EngineMemory memory;
  private final KeyColumns side;
  private final NullRows nulls;
  /** Block b is rows {@code [blockFrom[b], min(blockFrom[b] + BLOCK_TUPLES, rows))} of batch {@code blockBatch[b]}. */
  private final int[] blockBatch;
  private final int[] blockFrom;
  private OffHeapBuffer out;
  private OffHeapBuffer scratch;
  private OffHeapBuffer offsets;
  private MemorySegment clustered;

  private PackedSide(EngineMemory memory, KeyColumns side, NullRows nulls) {
    this.memory = memory;
    this.side = side;
    this.nulls = nulls;
    int blocks = 0;
    for (int b = 0; b < side.batches(); b++) {
      blocks += (side.batchRows(b) + BLOCK_TUPLES - 1) / BLOCK_TUPLES;
    }
    this.blockBatch = new int[blocks];
    this.blockFrom = new int[blocks];
    int k = 0;
    for (int b = 0; b < side.batches(); b++) {
      for (int from = 0; from < side.batchRows(b); from += BLOCK_TUPLES, k++) {
        blockBatch[k] = b;
        blockFrom[k] = from;
      }
    }
  }

  /** Bytes {@link #of} and {@link #cluster} allocate for a side of {@code rows} rows. */
  static long bytesFor(long rows, long nullBound, RadixPlan plan) {
    long tuples = Math.max(1, rows) * PackedTuples.BYTES_PER_TUPLE;
    return (plan.passes() > 1 ? 2 : 1) * tuples + NullRows.bytesFor(nullBound) + RadixCluster.offsetsBytes(plan);
  }

  /** The side of {@code side}'s keyed rows; the rows with a null key are listed now when {@code keepNulls}. */
  static PackedSide of(EngineMemory memory, KeyColumns side, boolean keepNulls) {
    NullRows nulls = NullRows.allocate(memory, side, keepNulls);
    if (nulls.segment() != null) {
      for (int b = 0; b < side.batches(); b++) {
        nulls.added(side.nullRows(b, nulls.segment(), nulls.count()));
      }
    }
    return new PackedSide(memory, side, nulls);
  }

  @Override
  public int blocks() {
    return blockBatch.length;
  }

  @Override
  public int fill(int block, MemorySegment into) {
    int batch = blockBatch[block];
    int from = blockFrom[block];
    return side.extractPacked(batch, from, Math.min(from + BLOCK_TUPLES, side.batchRows(batch)), into, 0);
  }

  /** Radix-clusters the keyed rows by {@code plan} on {@code threads} threads; afterwards {@link #tuples()} and {@link #clusterStart} apply. */
  void cluster(RadixPlan plan, int threads) {
    if (out != null) {
      throw new IllegalStateException("already clustered");
    }
    long bytes = Math.max(1, side.rowCount()) * PackedTuples.BYTES_PER_TUPLE;
    out = memory.allocate(bytes, Placement.HUGE_PAGES);
    scratch = plan.passes() > 1 ? memory.allocate(bytes, Placement.HUGE_PAGES) : null;
    offsets = memory.allocate(RadixCluster.offsetsBytes(plan));
    clustered = PackedRadixCluster.cluster(this, out.segment(), scratch == null ? null : scratch.segment(), plan,
        threads, offsets.segment());
  }

  /** The clustered tuples. */
  MemorySegment tuples() {
    return clustered;
  }

  /** First tuple index of cluster {@code c}; {@code clusterStart(clusters)} is the number of keyed tuples. */
  int clusterStart(int c) {
    return offsets.segment().getAtIndex(ValueLayout.JAVA_INT, c);
  }

  /** The largest cluster's size. */
  int largestCluster(int clusters) {
    return RadixCluster.largestCluster(offsets.segment(), clusters);
  }

  /** Emits every kept null-key row as unmatched, if the join type reports those. */
  void emitNullRows(JoinInput input, JoinOutput out) {
    nulls.emitUnmatched(input, out);
  }

  @Override
  public void close() {
    nulls.close();
    for (OffHeapBuffer buffer : new OffHeapBuffer[] {out, scratch, offsets}) {
      if (buffer != null) {
        buffer.close();
      }
    }
  }
}
