package dev.memwall.spark;

import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.execution.SparkPlan;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;

/**
 * Spark's partial hash aggregation over a memwall scan, run by memwall inside each task: one task per file
 * maps it, filters with the scan's pushed predicates and aggregates with memwall's plan
 * ({@link AggregateTask}), and hands Spark the partial rows its final aggregation expects. It replaces
 * {@code HashAggregate(partial) <- ColumnarToRow <- BatchScan(memwall)} ({@link PartialAggregateRule}):
 * no batch is turned into rows, and only the groups leave memwall.
 *
 * <p>A leaf plan node written in Java ({@link MemwallExec}: its product elements are its constructor's
 * arguments); {@link #references()} is empty because the node reads files, not a child's attributes.
 *
 * <p>Ownership: each task's memwall memory is freed before its rows leave the task. Thread safety: a
 * plan node is immutable.
 */
public final class MemwallPartialAggregateExec extends MemwallExec {
  private static final long serialVersionUID = 1L;

  private final Seq<Attribute> output;
  private final transient MemwallScan scan;
  private final AggregateTask task;
  private final String description;

  /**
   * Made by {@link PartialAggregateRule}, and by Spark's reflective copies with the same arguments (the
   * scan and task are typed {@code Object} as their classes are internal).
   *
   * @param output the replaced partial aggregation's output attributes
   * @param scan the memwall scan it reads (a {@code MemwallScan})
   * @param task what each task runs (an {@code AggregateTask})
   * @param description what memwall runs, for EXPLAIN
   */
  public MemwallPartialAggregateExec(Seq<Attribute> output, Object scan, Object task, String description) {
    this.output = output;
    this.scan = (MemwallScan) scan;
    this.task = (AggregateTask) task;
    this.description = description;
  }

  @Override
  public Seq<Attribute> output() {
    return output;
  }

  @Override
  public Seq<SparkPlan> children() {
    return scala.collection.immutable.List$.MODULE$.empty();
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return this;
  }

  @Override
  public AttributeSet references() {
    return org.apache.spark.sql.catalyst.expressions.AttributeSet$.MODULE$.empty();
  }

  @Override
  public RDD<InternalRow> doExecute() {
    return ScanTasks.run(sparkContext(), scan, task);
  }

  @Override
  public String nodeName() {
    return "MemwallPartialAggregate";
  }

  @Override
  Object[] arguments() {
    return new Object[] {output, scan, task, description};
  }

  @Override
  String description() {
    return description;
  }
}
