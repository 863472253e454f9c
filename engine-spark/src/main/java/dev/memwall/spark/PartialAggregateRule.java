package dev.memwall.spark;

import dev.memwall.spark.DataSetFiles.FileInfo;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.aggregate.HashAggregateExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Replaces {@code HashAggregate(partial) <- ColumnarToRow <- BatchScan(memwall)} by a
 * {@link MemwallPartialAggregateExec} wherever memwall computes every grouping key and aggregate
 * ({@link PartialAggregation}); leaves the plan untouched otherwise, logging why (at INFO, logger
 * {@code dev.memwall.spark}) and tagging the HashAggregate with the reason ({@link #FALLBACK}, shown by
 * {@link MemwallExtensions#explain}). Runs after Spark inserted its columnar transitions, on every query
 * stage, unless {@value MemwallSettings#ACCELERATION} or its own switch ({@link MemwallSettings}) is off.
 *
 * <p>Not replaced: a scan with runtime filters (dynamic partition pruning) or a key-grouped partitioning,
 * and anything between the aggregation and the scan (a filter Spark keeps, a projection).
 *
 * <p>Thread safety: stateless; Spark may apply it from several threads.
 */
final class PartialAggregateRule extends Rule<SparkPlan> {
  /** Why memwall left a partial aggregation over its scan to Spark. */
  static final TreeNodeTag<String> FALLBACK = new TreeNodeTag<>("memwall.fallback");


  @Override
  public SparkPlan apply(SparkPlan plan) {
    return MemwallSettings.enabled(conf(), MemwallSettings.PARTIAL_AGGREGATION, true) ? rewrite(plan) : plan;
  }

  private SparkPlan rewrite(SparkPlan plan) {
    if (plan instanceof HashAggregateExec aggregate
        && aggregate.child() instanceof ColumnarToRowExec toRows
        && toRows.child() instanceof BatchScanExec batchScan
        && batchScan.scan() instanceof MemwallScan scan) {
      String reason = reasonNotToReplace(aggregate, batchScan);
      if (reason == null) {
        PartialAggregation.Result translation = translate(aggregate, scan);
        if (translation.aggregation() != null) {
          return replace(aggregate, scan, translation.aggregation());
        }
        reason = translation.reason();
      }
      return OperatorRule.leave(aggregate, reason);
    }
    return PlanChildren.map(plan, this::rewrite);
  }

  private static String reasonNotToReplace(HashAggregateExec aggregate, BatchScanExec scan) {
    List<AggregateExpression> functions = CollectionConverters.asJava(aggregate.aggregateExpressions());
    if (functions.isEmpty()) {
      return "no aggregate functions";
    }
    if (!scan.runtimeFilters().isEmpty()) {
      return "the scan has runtime filters";
    }
    if (scan.keyGroupedPartitioning().isDefined()) {
      return "the scan has a key-grouped partitioning";
    }
    return null;
  }

  private static PartialAggregation.Result translate(HashAggregateExec aggregate, MemwallScan scan) {
    List<NamedExpression> grouping = CollectionConverters.asJava(aggregate.groupingExpressions());
    List<AggregateExpression> functions = CollectionConverters.asJava(aggregate.aggregateExpressions());
    StructType output = outputSchema(aggregate);
    PartialAggregation.Result first = null;
    for (FileInfo file : scan.files().files()) { // files of one data set may encode strings differently
      PartialAggregation.Result result = PartialAggregation.of(grouping, functions, output, file.arrowSchema());
      if (result.aggregation() == null) {
        return result;
      }
      first = first == null ? result : first;
    }
    return first;
  }

  private static MemwallPartialAggregateExec replace(HashAggregateExec aggregate, MemwallScan scan,
      PartialAggregation aggregation) {
    AggregateTask task = new AggregateTask(CollectionConverters.asJava(aggregate.groupingExpressions()),
        CollectionConverters.asJava(aggregate.aggregateExpressions()), outputSchema(aggregate), scan.files().schema(),
        scan.pushed().toArray(org.apache.spark.sql.connector.expressions.filter.Predicate[]::new),
        scan.taskMemoryBytes());
    String description = ScanTasks.describe(scan) + ", " + aggregation.describe();
    return OperatorRule.inPlaceOf(aggregate,
        new MemwallPartialAggregateExec(aggregate.output(), scan, task, description));
  }

  private static StructType outputSchema(HashAggregateExec aggregate) {
    List<StructField> fields = new ArrayList<>(); // Spark's buffer names repeat (sum, isEmpty, sum, ...)
    aggregate.output().foreach(attribute -> fields.add(DataTypes.createStructField("_" + fields.size(),
        attribute.dataType(), attribute.nullable())));
    return DataTypes.createStructType(fields);
  }
}
