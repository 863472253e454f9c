package dev.memwall.join.algorithm;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.ParallelRadixCluster;
import dev.memwall.core.partition.PartitionWriter;
import dev.memwall.core.partition.RadixCluster;
import dev.memwall.core.partition.RadixPlan;
import dev.memwall.core.partition.HashedTuples;
import dev.memwall.join.keys.KeyColumns;
import java.lang.foreign.ValueLayout;

/**
 * One input's {@link HashedTuples} (hash, row id), extracted into off-heap memory (huge pages where
 * available), optionally radix-clustered, with the row ids of its null keys on the side; the
 * counterpart of {@link PackedSide} for keys that do not pack.
 *
 * <p>Ownership: closes every buffer it allocated. Thread safety: none.
 */
public final class HashedSide implements AutoCloseable {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  /** Rows extracted between two cancellation checkpoints. */
  private static final int EXTRACT_BLOCK = 1 << 16;

  private final EngineMemory memory;
  private final HashedTuples primary;
  private final NullRows nulls;
  private final int count;
  private HashedTuples scratch;
  private OffHeapBuffer offsets;
  private OffHeapBuffer levelOffsets;
  private HashedTuples clustered;

  private HashedSide(EngineMemory memory, HashedTuples primary, NullRows nulls, int count) {
    this.memory = memory;
    this.primary = primary;
    this.nulls = nulls;
    this.count = count;
    this.clustered = primary;
  }

  /** Bytes {@link #extract} and {@link #cluster} allocate for a side of {@code rows} rows. */
  public static long bytesFor(long rows, long nullBound, RadixPlan plan) {
    long bytes = HashedTuples.bytesFor(rows) + NullRows.bytesFor(nullBound);
    if (plan != null && plan.passes() > 0) {
      bytes += HashedTuples.bytesFor(rows) + 2 * RadixCluster.offsetsBytes(plan);
    }
    return bytes;
  }

  /** Extracts every keyed row of {@code side}; null-key rows are kept only when {@code keepNulls}. */
  public static HashedSide extract(EngineMemory memory, KeyColumns side, boolean keepNulls) {
    HashedTuples tuples = HashedTuples.allocate(memory, side.rowCount(), Placement.HUGE_PAGES);
    NullRows nulls = null;
    try {
      nulls = NullRows.allocate(memory, side, keepNulls);
      long keyed = 0;
      for (int b = 0; b < side.batches(); b++) {
        for (int from = 0; from < side.batchRows(b); from += EXTRACT_BLOCK) {
          ExecutionControl.checkpoint(); // a batch may be the whole side: stop within a block when cancelled
          int to = Math.min(from + EXTRACT_BLOCK, side.batchRows(b));
          long packed = side.extract(b, from, to, tuples.hashes(), tuples.rows(), keyed, nulls.segment(), nulls.count());
          keyed += (int) packed;
          nulls.added((int) (packed >>> 32));
        }
      }
      return new HashedSide(memory, tuples, nulls, (int) keyed);
    } catch (RuntimeException | Error e) {
      tuples.close();
      if (nulls != null) {
        nulls.close();
      }
      throw e;
    }
  }

  /** Radix-clusters the tuples by {@code plan}; afterwards {@link #tuples()} and {@link #clusterStart} apply. */
  public void cluster(RadixPlan plan, boolean writeCombining) {
    cluster(plan, writeCombining, 1);
  }

  /**
   * Radix-clusters with {@code threads} threads: the first pass with Cieslewicz and Ross's
   * count-then-move writer, later passes cluster by cluster in parallel.
   */
  public void cluster(RadixPlan plan, boolean writeCombining, int threads) {
    if (scratch != null) {
      throw new IllegalStateException("already clustered");
    }
    scratch = HashedTuples.allocate(memory, Math.max(1, count), Placement.HUGE_PAGES);
    offsets = memory.allocate(RadixCluster.offsetsBytes(plan));
    if (threads > 1) {
      clustered = ParallelRadixCluster.cluster(primary, scratch, count, plan, threads, PartitionWriter.COUNT_THEN_MOVE,
          writeCombining, offsets.segment());
      return;
    }
    levelOffsets = memory.allocate(plan.passes() > 1 ? RadixCluster.offsetsBytes(plan) : Integer.BYTES);
    clustered = RadixCluster.cluster(primary, scratch, count, plan, writeCombining, offsets.segment(),
        levelOffsets.segment());
  }

  /** The tuples: clustered once {@link #cluster} ran. */
  public HashedTuples tuples() {
    return clustered;
  }

  /** Number of keyed tuples. */
  public int count() {
    return count;
  }

  /** First tuple index of cluster {@code c}; {@code clusterStart(clusters)} is {@link #count()}. */
  public int clusterStart(int c) {
    return offsets.segment().getAtIndex(INT, c);
  }

  /** The largest cluster's size. */
  public int largestCluster(int clusters) {
    return RadixCluster.largestCluster(offsets.segment(), clusters);
  }

  /** Emits every kept null-key row as unmatched, if the join type reports those. */
  public void emitNullRows(JoinInput input, JoinOutput out) {
    nulls.emitUnmatched(input, out);
  }

  @Override
  public void close() {
    primary.close();
    nulls.close();
    if (scratch != null) {
      scratch.close();
    }
    if (offsets != null) {
      offsets.close();
    }
    if (levelOffsets != null) {
      levelOffsets.close();
    }
  }
}
