package dev.memwall.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import scala.jdk.javaapi.CollectionConverters;

/** Test helpers looking into Spark's plans. */
final class Plans {
  private Plans() {}

  /** The memwall operators over a Spark child in {@code dataset}'s final physical plan (once it has run). */
  static List<MemwallUnaryExec> memwallOperators(Dataset<Row> dataset) {
    List<MemwallUnaryExec> operators = new ArrayList<>();
    collect(dataset.queryExecution().executedPlan(), operators);
    return operators;
  }

  private static void collect(SparkPlan plan, List<MemwallUnaryExec> operators) {
    if (plan instanceof MemwallUnaryExec operator) {
      operators.add(operator);
    }
    if (plan instanceof AdaptiveSparkPlanExec adaptive) {
      collect(adaptive.executedPlan(), operators);
    } else if (plan instanceof QueryStageExec stage) {
      collect(stage.plan(), operators);
    }
    for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
      collect(child, operators);
    }
  }

  /** The memwall scan of {@code dataset}'s optimized plan (the only one). */
  static MemwallScan scanOf(Dataset<Row> dataset) {
    LogicalPlan plan = dataset.queryExecution().optimizedPlan();
    for (LogicalPlan leaf : CollectionConverters.asJava(plan.collectLeaves())) {
      if (leaf instanceof DataSourceV2ScanRelation relation && relation.scan() instanceof MemwallScan scan) {
        return scan;
      }
    }
    throw new AssertionError("no memwall scan in\n" + plan);
  }
}
