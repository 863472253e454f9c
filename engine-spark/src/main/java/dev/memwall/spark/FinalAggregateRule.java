package dev.memwall.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.aggregate.HashAggregateExec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Replaces each final {@code HashAggregate} (one that requires its input distributed by its keys, as
 * Spark plans the aggregation after a partial one and its exchange) by a {@link MemwallFinalAggregateExec}
 * wherever memwall merges every function ({@link FinalAggregation}); leaves it to Spark otherwise,
 * logging why (at INFO, logger {@code dev.memwall.spark}) and tagging it with the reason
 * ({@link PartialAggregateRule#FALLBACK}, shown by {@link MemwallExtensions#explain}). Runs after Spark
 * inserted its columnar transitions, on every query stage, unless {@value MemwallSettings#ACCELERATION}
 * is false.
 *
 * <p>Thread safety: stateless; Spark may apply it from several threads.
 */
final class FinalAggregateRule extends Rule<SparkPlan> {
  private static final Logger LOG = LoggerFactory.getLogger("dev.memwall.spark");

  @Override
  public SparkPlan apply(SparkPlan plan) {
    return Boolean.parseBoolean(conf().getConfString(MemwallSettings.ACCELERATION, "true")) ? rewrite(plan) : plan;
  }

  private SparkPlan rewrite(SparkPlan plan) {
    List<SparkPlan> children = CollectionConverters.asJava(plan.children());
    List<SparkPlan> rewritten = new ArrayList<>(children.size());
    boolean changed = false;
    for (SparkPlan child : children) {
      SparkPlan next = rewrite(child);
      changed |= next != child;
      rewritten.add(next);
    }
    SparkPlan current = changed ? plan.withNewChildren(CollectionConverters.asScala(rewritten).toSeq()) : plan;
    if (current instanceof HashAggregateExec aggregate && aggregate.requiredChildDistributionExpressions().isDefined()) {
      FinalAggregation.Result translation = FinalAggregation.of(CollectionConverters.asJava(aggregate.child().output()),
          CollectionConverters.asJava(aggregate.groupingExpressions()),
          CollectionConverters.asJava(aggregate.aggregateExpressions()));
      if (translation.aggregation() != null) {
        return replace(aggregate, translation.aggregation());
      }
      LOG.info("memwall leaves {} to Spark: {}", aggregate.simpleString(5), translation.reason());
      aggregate.setTagValue(PartialAggregateRule.FALLBACK, translation.reason());
    }
    return current;
  }

  private MemwallFinalAggregateExec replace(HashAggregateExec aggregate, FinalAggregation aggregation) {
    List<AggregateExpression> functions = CollectionConverters.asJava(aggregate.aggregateExpressions());
    FinalAggregateTask task = new FinalAggregateTask(CollectionConverters.asJava(aggregate.child().output()),
        CollectionConverters.asJava(aggregate.groupingExpressions()), functions,
        CollectionConverters.asJava(aggregate.aggregateAttributes()),
        CollectionConverters.asJava(aggregate.resultExpressions()),
        MemwallSettings.parseBytes(MemwallSettings.TASK_MEMORY,
            conf().getConfString(MemwallSettings.TASK_MEMORY, MemwallSettings.DEFAULT_TASK_MEMORY)));
    MemwallFinalAggregateExec exec = new MemwallFinalAggregateExec(aggregate.output(), aggregate.child(), task,
        aggregation.describe(), aggregate.outputPartitioning());
    if (aggregate.logicalLink().isDefined()) {
      exec.setLogicalLink(aggregate.logicalLink().get());
    }
    return exec;
  }
}
