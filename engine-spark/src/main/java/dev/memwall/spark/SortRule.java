package dev.memwall.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.TakeOrderedAndProjectExec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Replaces Spark's {@code Sort} by a {@link MemwallSortExec} and its {@code TakeOrderedAndProject} by a
 * {@link MemwallTakeOrderedExec} wherever memwall sorts the rows as Spark orders them ({@link SortSpec});
 * leaves the operator to Spark otherwise, logging why (at INFO, logger {@code dev.memwall.spark}) and
 * tagging it with the reason ({@link PartialAggregateRule#FALLBACK}, shown by
 * {@link MemwallExtensions#explain}). Runs after Spark inserted its columnar transitions, on every query
 * stage, unless {@value MemwallSettings#ACCELERATION} is false.
 *
 * <p>Thread safety: stateless; Spark may apply it from several threads.
 */
final class SortRule extends Rule<SparkPlan> {
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
    if (current instanceof SortExec sort) {
      return replace(sort, sort.child(), sort.sortOrder(), -1, 0);
    } else if (current instanceof TakeOrderedAndProjectExec take) {
      return replace(take, take.child(), take.sortOrder(), take.limit(), take.offset());
    }
    return current;
  }

  private SparkPlan replace(SparkPlan operator, SparkPlan child, scala.collection.immutable.Seq<SortOrder> sortOrder,
      long limit, long offset) {
    List<Attribute> input = CollectionConverters.asJava(child.output());
    List<SortOrder> order = CollectionConverters.asJava(sortOrder);
    SortSpec.Result translation = SortSpec.of(input, order);
    if (translation.spec() == null) {
      LOG.info("memwall leaves {} to Spark: {}", operator.simpleString(5), translation.reason());
      operator.setTagValue(PartialAggregateRule.FALLBACK, translation.reason());
      return operator;
    }
    long memory = MemwallSettings.parseBytes(MemwallSettings.TASK_MEMORY,
        conf().getConfString(MemwallSettings.TASK_MEMORY, MemwallSettings.DEFAULT_TASK_MEMORY));
    String description = translation.spec().describe();
    SparkPlan exec = operator instanceof TakeOrderedAndProjectExec take
        ? new MemwallTakeOrderedExec(take.projectList(), child, new SortTask(input, order, limit, 0, memory),
            new SortTask(input, order, limit, offset, memory), description + ", limit " + limit
            + (offset > 0 ? ", offset " + offset : ""))
        : new MemwallSortExec(sortOrder, child, new SortTask(input, order, -1, 0, memory), description);
    if (operator.logicalLink().isDefined()) {
      exec.setLogicalLink(operator.logicalLink().get());
    }
    return exec;
  }
}
