package dev.memwall.spark;

import org.apache.spark.sql.execution.SparkPlan;

/**
 * What memwall's Spark plan nodes written in Java share: Spark copies plan nodes by reflection
 * ({@code TreeNode.makeCopy}) from their product elements, so {@link #productElement} returns
 * {@link #arguments()}, the public constructor's arguments in order, and EXPLAIN prints what memwall
 * runs ({@link #description()}) with the output attributes.
 *
 * <p>Thread safety: a plan node is immutable.
 */
public abstract class MemwallExec extends SparkPlan {
  private static final long serialVersionUID = 1L;

  /** The public constructor's arguments, in order. */
  abstract Object[] arguments();

  /** What memwall runs, for EXPLAIN. */
  abstract String description();

  @Override
  public final String simpleString(int maxFields) {
    return nodeName() + " " + description() + " output " + output().mkString("[", ", ", "]");
  }

  @Override
  public final int productArity() {
    return arguments().length;
  }

  @Override
  public final Object productElement(int n) {
    Object[] arguments = arguments();
    if (n < 0 || n >= arguments.length) {
      throw new IndexOutOfBoundsException(n);
    }
    return arguments[n];
  }

  @Override
  public final boolean canEqual(Object that) {
    return that != null && that.getClass() == getClass();
  }
}
