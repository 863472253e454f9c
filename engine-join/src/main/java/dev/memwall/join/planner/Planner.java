package dev.memwall.join.planner;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.partition.RadixPlan;
import dev.memwall.join.JoinAlgorithm;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Chooses how to run a join: for {@link JoinAlgorithm#AUTO}, the algorithm and radix plan with the
 * lowest cost under {@link CostModel}; for a named algorithm, that algorithm with its best radix plan
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
    JoinPlan.Candidate chosen = requested == JoinAlgorithm.AUTO ? candidates.getFirst()
        : candidates.stream().filter(c -> c.algorithm() == requested).findFirst().orElseThrow();
    return new JoinPlan(chosen.algorithm(), chosen.radix(), chosen.cost(), candidates);
  }
}
