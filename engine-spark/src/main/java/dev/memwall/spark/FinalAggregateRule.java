package dev.memwall.spark;

import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.aggregate.HashAggregateExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Replaces each final {@code HashAggregate} (one that requires its input distributed by its keys, as
 * Spark plans the aggregation after a partial one and its exchange) by a {@link MemwallFinalAggregateExec}
 * wherever memwall merges every function ({@link FinalAggregation}); leaves it to Spark otherwise, with
 * the reason ({@link OperatorRule}).
 *
 * <p>Thread safety: stateless; Spark may apply it from several threads.
 */
final class FinalAggregateRule extends OperatorRule {
  /** Whether {@value MemwallSettings#FINAL_AGGREGATION} is on when not set. */
  static final boolean BY_DEFAULT = false;

  FinalAggregateRule() {
    super(MemwallSettings.FINAL_AGGREGATION, BY_DEFAULT);
  }

  @Override
  SparkPlan replace(SparkPlan node) {
    if (!(node instanceof HashAggregateExec aggregate) || aggregate.requiredChildDistributionExpressions().isEmpty()) {
      return node;
    }
    FinalAggregation.Result translation = FinalAggregation.of(CollectionConverters.asJava(aggregate.child().output()),
        CollectionConverters.asJava(aggregate.groupingExpressions()),
        CollectionConverters.asJava(aggregate.aggregateExpressions()));
    if (translation.aggregation() == null) {
      return leave(aggregate, translation.reason());
    }
    FinalAggregateTask task = new FinalAggregateTask(CollectionConverters.asJava(aggregate.child().output()),
        CollectionConverters.asJava(aggregate.groupingExpressions()),
        CollectionConverters.asJava(aggregate.aggregateExpressions()),
        CollectionConverters.asJava(aggregate.aggregateAttributes()),
        CollectionConverters.asJava(aggregate.resultExpressions()), taskMemoryBytes());
    return inPlaceOf(aggregate, new MemwallFinalAggregateExec(aggregate.output(), aggregate.child(), task,
        translation.aggregation().describe(), aggregate.outputPartitioning()));
  }
}
