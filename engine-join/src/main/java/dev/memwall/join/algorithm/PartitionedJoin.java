package dev.memwall.join.algorithm;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.partition.RadixPlan;
import dev.memwall.core.partition.HashedTuples;
import dev.memwall.join.common.JoinMemoryException;
import dev.memwall.join.keys.KeyColumns;
import dev.memwall.join.keys.KeyShape;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The radix-cluster joins of seed 000: both inputs are radix-clustered on the same B hash bits in
 * P passes (the low bits of (hash, row id) {@link HashedTuples} by
 * {@link dev.memwall.core.partition.RadixCluster}, or for a key of one int32 column the top bits of
 * 8-byte (key, row id) tuples by {@link dev.memwall.core.partition.PackedRadixCluster}), then
 * cluster c of the left input is joined with cluster c of the right one by {@link ClusterJoin}:
 * phash, phash+ or radix-join (nested loops).
 *
 * <p>Memory: per input, its tuples twice (the passes ping-pong), 12 bytes each (8 for a key of one
 * int32 column), plus two boundary arrays of {@code 4 (2^B + 1)} bytes; on the heap, per thread,
 * the cluster tables for the largest right cluster.
 * Thread safety: stateless.
 */
public final class PartitionedJoin implements JoinMethod<PartitionedJoin.Settings> {
  /** The algorithm. */
  public static final PartitionedJoin METHOD = new PartitionedJoin();

  /**
   * How the join runs.
   *
   * @param radix the radix bits and passes both inputs are clustered on
   * @param kind how a pair of clusters is joined: phash, phash+ or radix-join's nested loops
   * @param writeCombining whether clustering of (hash, row id) tuples scatters through software
   *     write-combining buffers (packed tuples never do)
   * @param threads clustering and joining threads (at least 1)
   */
  public record Settings(RadixPlan radix, ClusterJoin.Kind kind, boolean writeCombining, int threads) {
    public Settings {
      Objects.requireNonNull(radix, "radix");
      Objects.requireNonNull(kind, "kind");
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be >= 1, got " + threads);
      }
    }
  }

  private PartitionedJoin() {}

  /**
   * Off-heap working memory for the given input sizes (the cluster tables are on the heap), with
   * {@link dev.memwall.core.partition.PackedTuples} when {@code packed} (see {@link #packs}).
   */
  public static long bytesFor(long leftRows, long leftNullBound, long rightRows, RadixPlan plan, boolean packed) {
    return packed ? PackedSide.bytesFor(leftRows, leftNullBound, plan) + PackedSide.bytesFor(rightRows, 0, plan)
        : HashedSide.bytesFor(leftRows, leftNullBound, plan) + HashedSide.bytesFor(rightRows, 0, plan);
  }

  @Override
  public long workingBytes(JoinInput sides, Settings settings) {
    return bytesFor(sides.left().rowCount(), sides.leftNullBound(), sides.right().rowCount(), settings.radix(),
        packs(sides.left()));
  }

  /**
   * With {@link Settings#threads} {@code > 1}: parallel radix-clustering (count-then-move first pass),
   * then a parallel join phase in which the threads take cluster pairs in blocks from a shared counter,
   * each with its own tables and output (their chunks reach the consumer one at a time).
   *
   * <p>A key of one int32 column is clustered as seed 000's 8-byte tuples ({@link PackedSide}), on
   * its multiplicative hash and without write-combining buffers; every other key as (hash, row id)
   * {@link HashedTuples}, through write-combining buffers when asked.
   */
  @Override
  public Details run(JoinInput input, JoinOutput out, Settings settings) {
    RadixPlan plan = settings.radix();
    ClusterJoin.Kind kind = settings.kind();
    int threads = settings.threads();
    int clusters = plan.clusters();
    if (packs(input.left())) {
      try (PackedSide left = PackedSide.of(input.memory(), input.left(), input.type().reportsUnmatched());
          PackedSide right = PackedSide.of(input.memory(), input.right(), false)) {
        left.cluster(plan, threads);
        right.cluster(plan, threads);
        left.emitNullRows(input, out);
        joinClusters(input, out, kind, clusters, right.largestCluster(clusters), threads,
            (join, c) -> join.joinPacked(left.tuples(), left.clusterStart(c), left.clusterStart(c + 1),
                right.tuples(), right.clusterStart(c), right.clusterStart(c + 1), plan.bits()));
      }
      return NoDetails.NONE;
    }
    try (HashedSide left = HashedSide.extract(input.memory(), input.left(), input.type().reportsUnmatched());
        HashedSide right = HashedSide.extract(input.memory(), input.right(), false)) {
      left.cluster(plan, settings.writeCombining(), threads);
      right.cluster(plan, settings.writeCombining(), threads);
      left.emitNullRows(input, out);
      joinClusters(input, out, kind, clusters, right.largestCluster(clusters), threads,
          (join, c) -> join.join(left.tuples(), left.clusterStart(c), left.clusterStart(c + 1),
              right.tuples(), right.clusterStart(c), right.clusterStart(c + 1)));
    }
    return NoDetails.NONE;
  }

  /** Whether a join on {@code keys} clusters {@link dev.memwall.core.partition.PackedTuples}: a key of one int32 column. */
  public static boolean packs(KeyColumns keys) {
    return keys.shape() == KeyShape.INT32;
  }

  /** Joins one pair of matching clusters with a thread's {@link ClusterJoin}. */
  @FunctionalInterface
  private interface ClusterPair {
    void join(ClusterJoin join, int cluster);
  }

  /** Clusters joined between two cancellation checkpoints on one thread (a power of two). */
  private static final int CHECKPOINT_CLUSTERS = 16;

  /** The join phase: every cluster pair, on {@code threads} threads, with tables sized for the largest right cluster. */
  private static void joinClusters(JoinInput input, JoinOutput out, ClusterJoin.Kind kind, int clusters, int largest,
      int threads, ClusterPair pair) {
    // The tables are heap arrays sized by the largest right cluster, which skew makes as large as the whole
    // side: charged to the budget like working memory, so a skewed join fails by name before the heap does.
    long tableBytes = ClusterJoin.tableBytes(kind, largest) * Math.max(1, threads);
    EngineMemory memory = input.memory();
    try {
      memory.reserveHeap(tableBytes);
    } catch (BudgetExceededException e) {
      throw new JoinMemoryException(String.format(Locale.ROOT, "the join phase's tables for the largest right "
          + "cluster, %d tuples (skewed keys), need %d bytes of heap on %d thread%s; %s", largest, tableBytes, threads,
          threads == 1 ? "" : "s", e.getMessage()), tableBytes, e);
    }
    try {
      joinEveryCluster(input, out, kind, clusters, largest, threads, pair);
    } finally {
      memory.releaseHeap(tableBytes);
    }
  }

  private static void joinEveryCluster(JoinInput input, JoinOutput out, ClusterJoin.Kind kind, int clusters,
      int largest, int threads, ClusterPair pair) {
    if (threads <= 1) {
      ClusterJoin join = new ClusterJoin(input, out, kind, largest);
      for (int c = 0; c < clusters; c++) {
        if ((c & (CHECKPOINT_CLUSTERS - 1)) == 0) {
          ExecutionControl.checkpoint();
        }
        pair.join(join, c);
      }
      return;
    }
    int block = Math.max(1, clusters / (threads * 16));
    AtomicInteger next = new AtomicInteger();
    out.inParallel(threads, mine -> {
      ClusterJoin join = new ClusterJoin(input, mine, kind, largest);
      for (int from = next.getAndAdd(block); from < clusters; from = next.getAndAdd(block)) {
        ExecutionControl.checkpoint();
        for (int c = from; c < Math.min(clusters, from + block); c++) {
          pair.join(join, c);
        }
      }
    });
  }
}
