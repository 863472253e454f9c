package dev.memwall.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's broadcast hash joins over a memwall scan, run by memwall inside each task: one task per input
 * partition of the scan maps its batches, filters them with the scan's pushed predicates and streams
 * them through memwall's hash table of each join's broadcast build side (built once per executor and
 * shared by its tasks), innermost join first
 * ({@link JoinTask}); it returns columnar batches over memwall's result, which Spark reads through a
 * {@code ColumnarToRowExec} above it. It replaces
 * {@code BroadcastHashJoin(ColumnarToRow(BatchScan(memwall)), build)} and joins stacked on it
 * ({@link BroadcastJoinRule}), so the probe side's rows are never Spark rows before the last join.
 *
 * <p>Its children are the joins' build sides, as Spark planned them (a broadcast exchange, or under
 * adaptive execution its query stage or a reused one): memwall reads what they broadcast. The probe
 * side, the scan, is not a child: {@link #references()} is empty.
 *
 * <p>A plan node written in Java ({@link MemwallExec}: its product elements are its constructor's
 * arguments). Ownership: each task's memwall memory belongs to the task ({@link TaskResources}), except the
 * joins' build sides, which the executor builds once per broadcast and its tasks share ({@link BroadcastBuilds}).
 * Thread safety: a plan node is immutable.
 */
public final class MemwallHashJoinExec extends MemwallExec {
  private static final long serialVersionUID = 1L;

  private final Seq<Attribute> output;
  private final transient MemwallScan scan;
  private final JoinTask task;
  private final Seq<SparkPlan> builds;
  private final String description;

  /**
   * Made by {@link BroadcastJoinRule}, and by Spark's reflective copies with the same arguments (the scan
   * and task are typed {@code Object} as their classes are internal).
   *
   * @param output the replaced join's output attributes
   * @param scan the memwall scan of the probe side (a {@code MemwallScan})
   * @param task what each task runs, without broadcasts yet (a {@code JoinTask})
   * @param builds each join's build side, innermost join first
   * @param description what memwall runs, for EXPLAIN
   */
  public MemwallHashJoinExec(Seq<Attribute> output, Object scan, Object task, Seq<SparkPlan> builds,
      String description) {
    this.output = output;
    this.scan = (MemwallScan) scan;
    this.task = (JoinTask) task;
    this.builds = builds;
    this.description = description;
  }

  /** What each task runs (its broadcasts not yet known). */
  JoinTask task() {
    return task;
  }

  /** The scan of the probe side. */
  MemwallScan scan() {
    return scan;
  }

  @Override
  public Seq<Attribute> output() {
    return output;
  }

  @Override
  public Seq<SparkPlan> children() {
    return builds;
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return new MemwallHashJoinExec(output, scan, task, newChildren, description);
  }

  @Override
  public AttributeSet references() {
    return org.apache.spark.sql.catalyst.expressions.AttributeSet$.MODULE$.empty();
  }

  @Override
  public boolean supportsColumnar() {
    return true;
  }

  @Override
  public RDD<InternalRow> doExecute() {
    throw new IllegalStateException(nodeName() + " produces columnar batches only; Spark reads it through "
        + "ColumnarToRowExec");
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    List<Broadcast<?>> broadcasts = new ArrayList<>();
    for (SparkPlan build : CollectionConverters.asJava(builds)) {
      broadcasts.add(build.executeBroadcast());
    }
    JoinTask run = new JoinTask(task.dataSchema(), task.readColumns(), task.pushed(), task.probes(), broadcasts,
        task.outputNames(), task.taskMemoryBytes());
    return ScanTasks.run(sparkContext(), scan, run);
  }

  @Override
  public String nodeName() {
    return "MemwallHashJoin";
  }

  @Override
  Object[] arguments() {
    return new Object[] {output, scan, task, builds, description};
  }

  @Override
  String description() {
    return description;
  }
}
