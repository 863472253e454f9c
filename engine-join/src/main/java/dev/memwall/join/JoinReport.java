package dev.memwall.join;

import dev.memwall.join.algorithm.JoinMethod;
import dev.memwall.join.grace.GraceHashJoin;
import dev.memwall.join.inspector.InspectorJoin;
import dev.memwall.join.planner.JoinPlan;
import dev.memwall.join.reducer.BloomReducer;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What one run of a {@link Join} did, returned by the call that ran it ({@link Join#analyze},
 * {@link Join#stream}): the plan it ran, the pairs it produced, its time, the algorithm's own account
 * and the semi-join reducer's.
 *
 * <p>Immutable; it holds no memory and may be kept after the join's inputs are closed.
 *
 * @param plan the plan that ran: with a {@linkplain Join#semiJoinReducer semi-join reducer}, the
 *     plan for the reduced left input (the planner chooses again once the reducer has run)
 * @param pairs the result pairs (rows of the result) the run produced
 * @param nanos the run's wall time, from after planning to the last pair delivered, the reducer
 *     included
 * @param details the algorithm's own account: a {@link GraceHashJoin.Report} for the spilling joins,
 *     an {@link InspectorJoin.Report} for the inspector join and enhanced cache partitioning,
 *     {@link JoinMethod.NoDetails#NONE} for the others; never null
 * @param reducer what the semi-join reducer did, or null when none ran
 */
public record JoinReport(JoinPlan plan, long pairs, long nanos, JoinMethod.Details details,
    BloomReducer.Report reducer) {
  public JoinReport {
    Objects.requireNonNull(plan, "plan");
    Objects.requireNonNull(details, "details");
  }

  /** What a spilling join ({@code GRACE}, {@code HYBRID_HASH}) did, if one ran. */
  public Optional<GraceHashJoin.Report> spill() {
    return details instanceof GraceHashJoin.Report report ? Optional.of(report) : Optional.empty();
  }

  /** What the inspector join or enhanced cache partitioning did, if one ran. */
  public Optional<InspectorJoin.Report> inspector() {
    return details instanceof InspectorJoin.Report report ? Optional.of(report) : Optional.empty();
  }

  /**
   * A few lines for people: the plan with the cost model's predictions ({@link JoinPlan#describe}),
   * the measured time and result size, then what the reducer and the algorithm reported.
   */
  public String describe() {
    StringBuilder s = new StringBuilder(plan.describe());
    s.append(String.format(Locale.ROOT, "%n  measured %.2f ms for %d result rows", nanos / 1e6, pairs));
    if (reducer != null) {
      s.append(String.format(Locale.ROOT, "%n  semi-join reducer: kept %d of %d left rows (filter of %d bytes)",
          reducer.keptRows(), reducer.leftRows(), reducer.filterBytes()));
    }
    if (details != JoinMethod.NoDetails.NONE) {
      s.append(System.lineSeparator()).append("  ").append(details);
    }
    return s.toString();
  }
}
