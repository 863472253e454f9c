package dev.memwall.spark;

import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;

/**
 * Spark's {@code Sort} (a global sort after a range exchange, or the sort of each partition) run by memwall
 * inside each task ({@link SortTask}): the same rows, in the same order, with the same partitioning and
 * ordering reported to Spark. {@link SortRule} puts it in place.
 *
 * <p>Written in Java: {@link #productElement} returns the public constructor's arguments in order, for
 * Spark's reflective copies. Ownership: each task's memwall memory is freed once its last row is read, or
 * when the task ends. Thread safety: a plan node is immutable.
 */
public final class MemwallSortExec extends MemwallUnaryExec {
  private static final long serialVersionUID = 1L;

  private final Seq<SortOrder> order;
  private final SparkPlan child;
  private final SortTask task;
  private final String description;

  /**
   * @param order the replaced sort's ordering
   * @param child the plan of its rows
   * @param task what each task runs (a {@code SortTask})
   * @param description what memwall runs, for EXPLAIN
   */
  public MemwallSortExec(Seq<SortOrder> order, SparkPlan child, Object task, String description) {
    this.order = order;
    this.child = child;
    this.task = (SortTask) task;
    this.description = description;
  }

  @Override
  public Seq<Attribute> output() {
    return child.output();
  }

  @Override
  public SparkPlan child() {
    return child;
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return new MemwallSortExec(order, newChildren.apply(0), task, description);
  }

  @Override
  public Partitioning outputPartitioning() {
    return child.outputPartitioning();
  }

  @Override
  public Seq<SortOrder> outputOrdering() {
    return order;
  }

  @Override
  public RDD<InternalRow> doExecute() {
    return child.execute().toJavaRDD().mapPartitions(task.measured(operatorMetrics())).rdd();
  }

  @Override
  public String nodeName() {
    return "MemwallSort";
  }

  @Override
  Object[] arguments() {
    return new Object[] {order, child, task, description};
  }

  @Override
  String description() {
    return description;
  }
}
