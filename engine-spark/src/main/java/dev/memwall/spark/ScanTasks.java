package dev.memwall.spark;

import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.rdd.RDD;

/**
 * The tasks of an operator memwall runs over a memwall scan in place of Spark's ({@link MemwallPartialAggregateExec},
 * {@link MemwallHashJoinExec}): one Spark task per input partition of the scan, running {@code task} on it.
 * Thread safety: stateless.
 */
final class ScanTasks {
  private ScanTasks() {}

  /** What {@code scan} reads, for an operator's description: its files, and the filters memwall runs. */
  static String describe(MemwallScan scan) {
    return "of " + scan.files().describe() + (scan.pushed().isEmpty() ? "" : ", filters "
        + scan.pushed().stream().map(org.apache.spark.sql.connector.expressions.filter.Predicate::describe).toList());
  }

  /** An RDD of one partition per input partition of {@code scan} (at least one), each running {@code task}. */
  static <T> RDD<T> run(SparkContext context, MemwallScan scan, FlatMapFunction<Iterator<MemwallInputPartition>, T> task) {
    List<MemwallInputPartition> partitions = Arrays.stream(scan.planInputPartitions())
        .map(MemwallInputPartition.class::cast).toList();
    return JavaSparkContext.fromSparkContext(context)
        .parallelize(partitions, Math.max(1, partitions.size()))
        .mapPartitions(task)
        .rdd();
  }
}
