package dev.memwall.spark;

import java.util.List;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;

/**
 * memwall's physical rules applied one after the other, each to what the one before made: the single
 * rule {@link MemwallExtensions} gives Spark after its columnar transitions. Thread safety: as its rules
 * (stateless).
 */
final class MemwallRules extends Rule<SparkPlan> {
  private final List<Rule<SparkPlan>> rules;

  @SafeVarargs
  MemwallRules(Rule<SparkPlan>... rules) {
    this.rules = List.of(rules);
  }

  @Override
  public SparkPlan apply(SparkPlan plan) {
    SparkPlan current = plan;
    for (Rule<SparkPlan> rule : rules) {
      current = rule.apply(current);
    }
    return current;
  }
}
