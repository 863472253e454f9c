package dev.memwall.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.execution.ColumnarRule;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.catalyst.rules.Rule;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * memwall's Spark session extensions: with {@code spark.sql.extensions=dev.memwall.spark.MemwallExtensions},
 * a broadcast hash join whose streamed side is a memwall scan (or such a join already in memwall) runs inside
 * memwall ({@link MemwallHashJoinExec}, {@link BroadcastJoinRule}) whenever memwall supports its type and keys;
 * a partial hash aggregation directly over a memwall scan runs inside memwall
 * ({@link MemwallPartialAggregateExec}) whenever memwall computes all its keys and aggregates, as does a
 * final hash aggregation whose functions memwall merges ({@link MemwallFinalAggregateExec}), and a sort or
 * an {@code ORDER BY ... LIMIT} whose order memwall keeps ({@link MemwallSortExec},
 * {@link MemwallTakeOrderedExec}); each stays Spark's otherwise (per operator, with the reason logged and
 * shown by {@link #explain}). Each kind has its own switch ({@link MemwallSettings}); only the partial
 * aggregation is on by default, the others where a session turns them on, since they did not yet beat
 * Spark's own operators on TPC-H.
 *
 * <p>Spark instantiates this class by name (public no-argument constructor) and applies it to each new
 * session. Thread safety: stateless.
 */
public final class MemwallExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectColumnar(new AbstractFunction1<SparkSession, ColumnarRule>() {
      @Override
      public ColumnarRule apply(SparkSession session) {
        return new ColumnarRule() {
          @Override
          public Rule<SparkPlan> postColumnarTransitions() {
            // what a rule takes does not depend on another's replacements (a partial aggregation over a
            // memwall join stays Spark's; a final aggregation or a sort takes any input), so the order only
            // decides the plan a reason names: a join left to Spark names its streamed side as Spark
            // planned it (a final aggregation memwall takes afterwards is still HashAggregate there)
            return new MemwallRules(new BroadcastJoinRule(), new PartialAggregateRule(),
                new FinalAggregateRule(), new SortRule());
          }
        };
      }
    });
    return BoxedUnit.UNIT;
  }

  /**
   * What memwall runs of {@code dataset}'s physical plan (the final one, once the query has run under
   * adaptive execution): one line per operator memwall runs, and one per operator it could take (a
   * broadcast hash join, an aggregation over a memwall scan, a final aggregation, a sort) that it left to
   * Spark, with why.
   */
  public static List<String> explain(Dataset<?> dataset) {
    List<String> lines = new ArrayList<>();
    forEachNode(dataset.queryExecution().executedPlan(), plan -> {
      if (plan instanceof MemwallPartialAggregateExec || plan instanceof MemwallFinalAggregateExec
          || plan instanceof MemwallSortExec || plan instanceof MemwallTakeOrderedExec
          || plan instanceof MemwallHashJoinExec) {
        lines.add("memwall runs: " + plan.simpleString(10));
      }
      if (plan.getTagValue(PartialAggregateRule.FALLBACK).isDefined()) {
        lines.add("memwall leaves to Spark: " + plan.simpleString(5) + ": "
            + plan.getTagValue(PartialAggregateRule.FALLBACK).get());
      }
    });
    return lines;
  }

  /**
   * Visits {@code plan} and every node under it, depth first, looking into adaptive execution's final plan
   * and its query stages.
   */
  static void forEachNode(SparkPlan plan, java.util.function.Consumer<SparkPlan> action) {
    action.accept(plan);
    if (plan instanceof AdaptiveSparkPlanExec adaptive) {
      forEachNode(adaptive.executedPlan(), action);
    } else if (plan instanceof QueryStageExec stage) {
      forEachNode(stage.plan(), action);
    }
    for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
      forEachNode(child, action);
    }
  }
}
