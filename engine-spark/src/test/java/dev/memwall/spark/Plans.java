package dev.memwall.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import scala.jdk.javaapi.CollectionConverters;

/** Test helpers looking into Spark's plans. */
final class Plans {
  private Plans() {}

  /** The memwall operators over a Spark child in {@code dataset}'s final physical plan (once it has run). */
  static List<MemwallUnaryExec> memwallOperators(Dataset<Row> dataset) {
    List<MemwallUnaryExec> operators = new ArrayList<>();
    MemwallExtensions.forEachNode(dataset.queryExecution().executedPlan(), plan -> {
      if (plan instanceof MemwallUnaryExec operator) {
        operators.add(operator);
      }
    });
    return operators;
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
