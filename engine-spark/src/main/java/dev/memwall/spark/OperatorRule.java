package dev.memwall.spark;

import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rule replacing Spark operators by memwall's, node by node from the leaves up (so an operator's child
 * is already memwall's where memwall took it), unless {@value MemwallSettings#ACCELERATION} or the rule's own switch is off. An
 * operator memwall does not take is left as it is, with the reason logged (at INFO, logger
 * {@code dev.memwall.spark}) and tagged ({@link PartialAggregateRule#FALLBACK}, shown by
 * {@link MemwallExtensions#explain}).
 *
 * <p>Thread safety: stateless; Spark may apply it from several threads.
 */
abstract class OperatorRule extends Rule<SparkPlan> {
  private static final Logger LOG = LoggerFactory.getLogger("dev.memwall.spark");

  private final String setting;
  private final boolean byDefault;

  /** A rule that runs when {@code setting} (one of {@link MemwallSettings}' switches) is on. */
  OperatorRule(String setting, boolean byDefault) {
    this.setting = setting;
    this.byDefault = byDefault;
  }

  /** {@code node} (whose children are already rewritten) or memwall's operator in its place. */
  abstract SparkPlan replace(SparkPlan node);

  @Override
  public final SparkPlan apply(SparkPlan plan) {
    return MemwallSettings.enabled(conf(), setting, byDefault) ? rewrite(plan) : plan;
  }

  private SparkPlan rewrite(SparkPlan plan) {
    return replace(PlanChildren.map(plan, this::rewrite));
  }

  /** Leaves {@code operator} to Spark, saying why; returns it. */
  static SparkPlan leave(SparkPlan operator, String reason) {
    LOG.info("memwall leaves {} to Spark: {}", operator.simpleString(5), reason);
    operator.setTagValue(PartialAggregateRule.FALLBACK, reason);
    return operator;
  }

  /** {@code exec}, taking {@code operator}'s place: linked to its logical plan. */
  static <T extends SparkPlan> T inPlaceOf(SparkPlan operator, T exec) {
    if (operator.logicalLink().isDefined()) {
      exec.setLogicalLink(operator.logicalLink().get());
    }
    return exec;
  }

  /** The memory each task of memwall's operators asks Spark for ({@value MemwallSettings#TASK_MEMORY}). */
  long taskMemoryBytes() {
    return MemwallSettings.parseBytes(MemwallSettings.TASK_MEMORY,
        conf().getConfString(MemwallSettings.TASK_MEMORY, MemwallSettings.DEFAULT_TASK_MEMORY));
  }
}
