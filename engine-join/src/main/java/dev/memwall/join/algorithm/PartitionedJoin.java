package dev.memwall.join.algorithm;

import dev.memwall.core.concurrent.Workers;
import dev.memwall.core.partition.RadixPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The radix-cluster joins of seed 000: both inputs are radix-clustered on the same low B hash bits
 * in P passes ({@link dev.memwall.core.partition.RadixCluster}), then cluster c of the left input is
 * joined with cluster c of the right one by {@link ClusterJoin}: phash, phash+ or radix-join
 * (nested loops).
 *
 * <p>Memory: per input, its tuples twice (the passes ping-pong), 12 bytes each, plus two boundary
 * arrays of {@code 4 (2^B + 1)} bytes; the cluster tables for the largest right cluster.
 * Thread safety: stateless.
 */
public final class PartitionedJoin {
  private PartitionedJoin() {}

  /** Working memory for the given input sizes, with the cluster tables sized for the worst case, one set per thread. */
  public static long bytesFor(long leftRows, long leftNullBound, long rightRows, RadixPlan plan, ClusterJoin.Kind kind,
      int threads) {
    return ExtractedSide.bytesFor(leftRows, leftNullBound, plan) + ExtractedSide.bytesFor(rightRows, 0, plan)
        + threads * ClusterJoin.bytesFor(kind, rightRows);
  }

  public static void run(JoinInput input, JoinOutput out, RadixPlan plan, ClusterJoin.Kind kind,
      boolean writeCombining) {
    run(input, out, plan, kind, writeCombining, 1);
  }

  /**
   * With {@code threads > 1}: parallel radix-clustering (count-then-move first pass), then a
   * parallel join phase in which the threads take cluster pairs in blocks from a shared counter,
   * each with its own tables and output (their chunks reach the consumer one at a time).
   */
  public static void run(JoinInput input, JoinOutput out, RadixPlan plan, ClusterJoin.Kind kind,
      boolean writeCombining, int threads) {
    try (ExtractedSide left = ExtractedSide.extract(input.memory(), input.left(), input.type().reportsUnmatched());
        ExtractedSide right = ExtractedSide.extract(input.memory(), input.right(), false)) {
      left.cluster(plan, writeCombining, threads);
      right.cluster(plan, writeCombining, threads);
      left.emitNullRows(input, out);
      int clusters = plan.clusters();
      int largest = right.largestCluster(clusters);
      if (threads <= 1) {
        try (ClusterJoin join = new ClusterJoin(input, out, kind, largest)) {
          joinClusters(join, left, right, 0, clusters);
        }
        return;
      }
      int block = Math.max(1, clusters / (threads * 16));
      AtomicInteger next = new AtomicInteger();
      List<JoinOutput> outputs = new ArrayList<>();
      try {
        List<Runnable> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          JoinOutput mine = t == 0 ? out : out.fork();
          if (t > 0) {
            outputs.add(mine);
          }
          tasks.add(() -> {
            try (ClusterJoin join = new ClusterJoin(input, mine, kind, largest)) {
              for (int c = next.getAndAdd(block); c < clusters; c = next.getAndAdd(block)) {
                joinClusters(join, left, right, c, Math.min(clusters, c + block));
              }
            }
            mine.flush();
          });
        }
        Workers.runAll("memwall-join", tasks);
        outputs.forEach(out::absorb);
      } finally {
        outputs.forEach(JoinOutput::close);
      }
    }
  }

  private static void joinClusters(ClusterJoin join, ExtractedSide left, ExtractedSide right, int from, int to) {
    for (int c = from; c < to; c++) {
      join.join(left.tuples(), left.clusterStart(c), left.clusterStart(c + 1),
          right.tuples(), right.clusterStart(c), right.clusterStart(c + 1));
    }
  }
}
