package dev.memwall.spark;

import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.SinglePartition$;
import org.apache.spark.sql.execution.SparkPlan;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's {@code TakeOrderedAndProject} ({@code ORDER BY ... LIMIT n [OFFSET m]}) run by memwall: each task
 * keeps its partition's first {@code n} rows with memwall's top-N ({@link SortTask}), one task takes the
 * first {@code n} of those (gathered in one partition), leaves out the first {@code m} and computes Spark's
 * projection of the rest. {@link SortRule} puts it in place.
 *
 * <p>Written in Java: {@link #productElement} returns the public constructor's arguments in order, for
 * Spark's reflective copies. Ownership: each task's memwall memory is freed once its last row is read, or
 * when the task ends. Thread safety: a plan node is immutable.
 */
public final class MemwallTakeOrderedExec extends MemwallUnaryExec {
  private static final long serialVersionUID = 1L;

  private final Seq<NamedExpression> projectList;
  private final SparkPlan child;
  private final SortTask local;
  private final SortTask last;
  private final String description;

  /**
   * @param projectList the replaced operator's projection
   * @param child the plan of its rows
   * @param local what each task of the child runs: its top-N, nothing left out (a {@code SortTask})
   * @param last what the one task gathering them runs: the top-N with the offset (a {@code SortTask})
   * @param description what memwall runs, for EXPLAIN
   */
  public MemwallTakeOrderedExec(Seq<NamedExpression> projectList, SparkPlan child, Object local, Object last,
      String description) {
    this.projectList = projectList;
    this.child = child;
    this.local = (SortTask) local;
    this.last = (SortTask) last;
    this.description = description;
  }

  @Override
  public Seq<Attribute> output() {
    return CollectionConverters.asScala(CollectionConverters.asJava(projectList).stream()
        .map(NamedExpression::toAttribute).toList()).toSeq();
  }

  @Override
  public SparkPlan child() {
    return child;
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return new MemwallTakeOrderedExec(projectList, newChildren.apply(0), local, last, description);
  }

  @Override
  public Partitioning outputPartitioning() {
    return SinglePartition$.MODULE$;
  }

  @Override
  public RDD<InternalRow> doExecute() {
    JavaRDD<InternalRow> input = child.execute().toJavaRDD();
    if (input.getNumPartitions() == 0) {
      return input.rdd();
    }
    OperatorMetrics metrics = operatorMetrics();
    JavaRDD<InternalRow> gathered = input.getNumPartitions() == 1 ? input
        // the rows are copied: the shuffle may hold them beyond the iterator's next row
        : input.mapPartitions(local.measured(metrics)).map(InternalRow::copy).coalesce(1, true);
    List<Expression> projections = CollectionConverters.asJava(projectList).stream()
        .map(e -> (Expression) e).toList();
    Seq<Attribute> attributes = child.output();
    SortTask top = last;
    FlatMapFunction<java.util.Iterator<InternalRow>, InternalRow> project = rows -> {
      UnsafeProjection projection = UnsafeProjection.create(
          CollectionConverters.asScala(projections).toSeq(), attributes);
      java.util.Iterator<InternalRow> sorted = top.call(rows, metrics);
      return new java.util.Iterator<>() {
        @Override
        public boolean hasNext() {
          return sorted.hasNext();
        }

        @Override
        public InternalRow next() {
          return projection.apply(sorted.next());
        }
      };
    };
    return gathered.mapPartitions(project).rdd();
  }

  @Override
  public String nodeName() {
    return "MemwallTakeOrdered";
  }

  @Override
  Object[] arguments() {
    return new Object[] {projectList, child, local, last, description};
  }

  @Override
  String description() {
    return description;
  }
}
