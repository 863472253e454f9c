package dev.memwall.join.planner;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.partition.RadixPlan;
import dev.memwall.join.JoinAlgorithm;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Chooses how to run a join: for {@link JoinAlgorithm#AUTO}, the non-partitioned join with the
 * lowest cost when the build side's hash table fits the last-level cache, else the algorithm and
 * radix plan with the lowest cost under {@link CostModel}; for a named algorithm, that algorithm with its best radix plan
 * (or the caller's plan, if given).
 *
 * <p>Thread safety: immutable.
 */
public final class Planner {
  private final CostModel model;

  public Planner(MachineProfile profile) {
    this.model = new CostModel(profile);
  }

  public CostModel model() {
    return model;
  }

  /**
   * The plan for joining {@code leftRows} with {@code rightRows}.
   *
   * @param requested the algorithm asked for, or AUTO
   * @param radix the caller's radix plan, or null to let the model choose
   */
  public JoinPlan plan(JoinAlgorithm requested, long leftRows, long rightRows, RadixPlan radix, boolean writeCombining) {
    double left = Math.max(1, leftRows);
    double right = Math.max(1, rightRows);
    List<JoinPlan.Candidate> candidates = new ArrayList<>();
    for (JoinAlgorithm algorithm : JoinAlgorithm.values()) {
      if (algorithm.costed()) {
        candidates.add(radix != null && algorithm.clusters()
            ? new JoinPlan.Candidate(algorithm, radix, model.cost(algorithm, left, right, radix, writeCombining))
            : model.best(algorithm, left, right, writeCombining));
      }
    }
    candidates.sort(Comparator.comparingDouble(c -> c.cost().totalNanos()));
    JoinPlan.Candidate chosen = requested == JoinAlgorithm.AUTO ? auto(candidates, right)
        : candidates.stream().filter(c -> c.algorithm() == requested).findFirst().orElseThrow();
    return new JoinPlan(chosen.algorithm(), chosen.radix(), chosen.cost(), candidates);
  }

  /**
   * AUTO's choice among the costed candidates (cheapest first). Radix clustering exists to make the
   * hash table of each cluster fit the cache (seed 000); when the whole build side's table already
   * fits the last-level cache it only adds passes over both inputs, and it scatters the result pairs
   * (the probe side's rows come out cluster by cluster, so gathering their columns afterwards is
   * random access instead of a scan). Then the cheapest non-partitioned join is chosen; otherwise the
   * cheapest candidate. The bound guards against the cost model's cache levels, which on VMs can
   * report a last level no faster than memory.
   */
  private JoinPlan.Candidate auto(List<JoinPlan.Candidate> costed, double right) {
    if (model.hashTableBytes(right) <= model.lastLevelCacheBytes()) {
      for (JoinPlan.Candidate candidate : costed) {
        if (!candidate.algorithm().clusters()) {
          return candidate;
        }
      }
    }
    return costed.getFirst();
  }
}
