package dev.memwall.join.planner;

import dev.memwall.core.partition.RadixPlan;
import dev.memwall.join.common.JoinAlgorithm;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A chosen way to run a join: the algorithm, its radix plan (for the clustering algorithms), and
 * what the cost model predicts for it and for the alternatives it considered.
 *
 * @param algorithm never {@link JoinAlgorithm#AUTO}
 * @param radix the radix bits and passes, or null for the non-partitioned algorithms
 * @param predicted the cost model's estimate for this choice (null when no model was consulted)
 * @param alternatives every costed algorithm's best configuration as the model saw it, cheapest
 *     first (empty when the algorithm was asked for by name without a profile)
 * @param probeSkew the sample of the probe keys the costs assumed ({@link ProbeSkew#UNIFORM} when
 *     none was taken)
 * @param singleCluster whether the clustering algorithms were costed only without clustering
 *     passes (B = 0, one cluster): AUTO's choice for a build side whose table fits the last-level
 *     cache, where more clusters would only add passes
 */
public record JoinPlan(JoinAlgorithm algorithm, RadixPlan radix, Cost predicted, List<Candidate> alternatives,
    ProbeSkew probeSkew, boolean singleCluster) {
  public JoinPlan {
    alternatives = List.copyOf(alternatives);
    Objects.requireNonNull(probeSkew, "probeSkew");
  }

  /** A plan for an algorithm asked for by name, without the cost model. */
  public static JoinPlan named(JoinAlgorithm algorithm, RadixPlan radix) {
    return new JoinPlan(algorithm, radix, null, List.of(), ProbeSkew.UNIFORM, false);
  }

  /** One algorithm with its best radix plan and predicted cost. */
  public record Candidate(JoinAlgorithm algorithm, RadixPlan radix, Cost cost) {}

  /**
   * A predicted cost, split as the seed splits it.
   *
   * @param clusterNanos radix-clustering (or extracting) the inputs
   * @param joinNanos building and probing, or merging
   */
  public record Cost(double clusterNanos, double joinNanos) {
    public double totalNanos() {
      return clusterNanos + joinNanos;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%.2f ms (cluster %.2f + join %.2f)", totalNanos() / 1e6,
          clusterNanos / 1e6, joinNanos / 1e6);
    }
  }

  /** A few lines: the choice, then the alternatives with their predicted costs. */
  public String describe() {
    StringBuilder s = new StringBuilder();
    s.append(algorithm);
    if (radix != null) {
      s.append(' ').append(radix);
    }
    if (predicted != null) {
      s.append(", predicted ").append(predicted);
    }
    if (probeSkew.sampled() > 0) {
      s.append(", ").append(probeSkew);
    }
    for (Candidate c : alternatives) {
      s.append(System.lineSeparator()).append("  ").append(String.format(Locale.ROOT, "%-16s", c.algorithm()))
          .append(c.radix() == null ? String.format(Locale.ROOT, "%-22s", "") : String.format(Locale.ROOT, "%-22s", c.radix()))
          .append(c.cost());
    }
    if (singleCluster) {
      s.append(System.lineSeparator())
          .append("  (partitioned joins costed as one cluster, B = 0: the table fits the last-level cache)");
    }
    return s.toString();
  }
}
