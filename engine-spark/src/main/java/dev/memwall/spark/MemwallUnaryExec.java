package dev.memwall.spark;

import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.collection.immutable.Seq;

/**
 * A memwall operator over one Spark child ({@link MemwallFinalAggregateExec}, {@link MemwallSortExec},
 * {@link MemwallTakeOrderedExec}): the child is one of its constructor's {@link #arguments()}. Its tasks hold
 * their rows in memwall memory, and report their peak memory and spilled bytes as Spark's sort does
 * ({@link OperatorMetrics}, made on first use, on the driver).
 *
 * <p>Thread safety: a plan node is immutable but for its metrics, made once under the node's lock.
 */
public abstract class MemwallUnaryExec extends MemwallExec {
  private static final long serialVersionUID = 1L;

  private transient OperatorMetrics operatorMetrics;

  /** This node's metrics, which its tasks add to. */
  final synchronized OperatorMetrics operatorMetrics() {
    if (operatorMetrics == null) {
      operatorMetrics = OperatorMetrics.create(sparkContext());
    }
    return operatorMetrics;
  }

  @Override
  public scala.collection.immutable.Map<String, SQLMetric> metrics() {
    return operatorMetrics().byName();
  }

  /** The plan whose rows this operator reads. */
  public abstract SparkPlan child();

  @Override
  public final Seq<SparkPlan> children() {
    return scala.collection.immutable.List$.MODULE$.<SparkPlan>empty().$colon$colon(child());
  }
}
