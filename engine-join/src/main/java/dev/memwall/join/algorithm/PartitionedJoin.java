package dev.memwall.join.algorithm;

import dev.memwall.core.partition.RadixPlan;

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

  /** Working memory for the given input sizes, with the cluster tables sized for the worst case. */
  public static long bytesFor(long leftRows, long leftNullBound, long rightRows, RadixPlan plan, ClusterJoin.Kind kind) {
    return ExtractedSide.bytesFor(leftRows, leftNullBound, plan) + ExtractedSide.bytesFor(rightRows, 0, plan)
        + ClusterJoin.bytesFor(kind, rightRows);
  }

  public static void run(JoinInput input, JoinOutput out, RadixPlan plan, ClusterJoin.Kind kind,
      boolean writeCombining) {
    try (ExtractedSide left = ExtractedSide.extract(input.memory(), input.left(), input.type().reportsUnmatched());
        ExtractedSide right = ExtractedSide.extract(input.memory(), input.right(), false)) {
      left.cluster(plan, writeCombining);
      right.cluster(plan, writeCombining);
      left.emitNullRows(input, out);
      int clusters = plan.clusters();
      try (ClusterJoin join = new ClusterJoin(input, out, kind, right.largestCluster(clusters))) {
        for (int c = 0; c < clusters; c++) {
          join.join(left.tuples(), left.clusterStart(c), left.clusterStart(c + 1),
              right.tuples(), right.clusterStart(c), right.clusterStart(c + 1));
        }
      }
    }
  }
}
