package dev.memwall.spark;

import org.apache.spark.sql.execution.SparkPlan;
import scala.collection.immutable.Seq;

/**
 * A memwall operator over one Spark child ({@link MemwallFinalAggregateExec}, {@link MemwallSortExec},
 * {@link MemwallTakeOrderedExec}): the child is one of its constructor's {@link #arguments()}.
 *
 * <p>Thread safety: a plan node is immutable.
 */
public abstract class MemwallUnaryExec extends MemwallExec {
  private static final long serialVersionUID = 1L;

  /** The plan whose rows this operator reads. */
  public abstract SparkPlan child();

  @Override
  public final Seq<SparkPlan> children() {
    return scala.collection.immutable.List$.MODULE$.<SparkPlan>empty().$colon$colon(child());
  }
}
