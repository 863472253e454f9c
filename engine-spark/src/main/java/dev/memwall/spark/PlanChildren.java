package dev.memwall.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.execution.SparkPlan;
import scala.jdk.javaapi.CollectionConverters;

/** Rewriting a Spark plan's children, for memwall's rules. Thread safety: stateless. */
final class PlanChildren {
  private PlanChildren() {}

  /** {@code plan} with each child replaced by {@code rewrite} of it; {@code plan} itself when none changed. */
  static SparkPlan map(SparkPlan plan, UnaryOperator<SparkPlan> rewrite) {
    List<SparkPlan> children = CollectionConverters.asJava(plan.children());
    List<SparkPlan> rewritten = new ArrayList<>(children.size());
    boolean changed = false;
    for (SparkPlan child : children) {
      SparkPlan next = rewrite.apply(child);
      changed |= next != child;
      rewritten.add(next);
    }
    return changed ? plan.withNewChildren(CollectionConverters.asScala(rewritten).toSeq()) : plan;
  }
}
