package dev.memwall.spark;

import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;

/**
 * Spark's final hash aggregation run by memwall inside each task ({@link FinalAggregateTask}): it reads its
 * child's partial rows (the shuffle of a partial aggregation), merges them per group with memwall's hash
 * aggregation, and hands Spark the rows the replaced {@code HashAggregate} would: the same output
 * attributes, the same partitioning. {@link FinalAggregateRule} puts it in place.
 *
 * <p>Written in Java: Spark copies plan nodes by reflection ({@code TreeNode.makeCopy}) from their product
 * elements, so {@link #productElement} returns the public constructor's arguments in order.
 *
 * <p>Ownership: each task's memwall memory is freed once its last row is read, or when the task ends.
 * Thread safety: a plan node is immutable.
 */
public final class MemwallFinalAggregateExec extends MemwallUnaryExec {
  private static final long serialVersionUID = 1L;

  private final Seq<Attribute> output;
  private final SparkPlan child;
  private final FinalAggregateTask task;
  private final String description;
  private final Partitioning partitioning;

  /**
   * Made by {@link FinalAggregateRule}, and by Spark's reflective copies with the same arguments (the task
   * is typed {@code Object} as its class is internal).
   *
   * @param output the replaced aggregation's output attributes
   * @param child the plan of its partial rows
   * @param task what each task runs (a {@code FinalAggregateTask})
   * @param description what memwall runs, for EXPLAIN
   * @param partitioning the replaced aggregation's output partitioning
   */
  public MemwallFinalAggregateExec(Seq<Attribute> output, SparkPlan child, Object task, String description,
      Partitioning partitioning) {
    this.output = output;
    this.child = child;
    this.task = (FinalAggregateTask) task;
    this.description = description;
    this.partitioning = partitioning;
  }

  @Override
  public Seq<Attribute> output() {
    return output;
  }

  @Override
  public SparkPlan child() {
    return child;
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return new MemwallFinalAggregateExec(output, newChildren.apply(0), task, description, partitioning);
  }

  @Override
  public Partitioning outputPartitioning() {
    return partitioning;
  }

  @Override
  public RDD<InternalRow> doExecute() {
    return child.execute().toJavaRDD().mapPartitions(task.measured(operatorMetrics())).rdd();
  }

  @Override
  public String nodeName() {
    return "MemwallFinalAggregate";
  }

  @Override
  Object[] arguments() {
    return new Object[] {output, child, task, description, partitioning};
  }

  @Override
  String description() {
    return description;
  }
}
