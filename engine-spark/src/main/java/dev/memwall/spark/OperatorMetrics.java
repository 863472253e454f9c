package dev.memwall.spark;

import java.io.Serializable;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import scala.collection.immutable.Map;

/**
 * What a memwall operator that holds its rows in a task (a sort, a final aggregation) reports to Spark's UI
 * and to {@code SparkPlan.metrics}, as Spark's own sort does: the peak of memwall memory each task held and
 * the bytes its tasks spilled. Made on the driver with the plan node; its {@link SQLMetric}s travel to the
 * tasks inside the task function and add up there (Spark's accumulators).
 *
 * <p>Thread safety: a task adds to its own copies of the accumulators; Spark merges them.
 *
 * @param peakMemory the most memwall memory a task held (a size metric: Spark shows the total, min, median
 *     and max of the tasks)
 * @param spillSize the bytes memwall wrote to spill files
 */
record OperatorMetrics(SQLMetric peakMemory, SQLMetric spillSize) implements Serializable {
  /** The metric names, as Spark's sort names them. */
  static final String PEAK_MEMORY = "peakMemory";
  static final String SPILL_SIZE = "spillSize";

  /** New metrics, registered with {@code context}. */
  static OperatorMetrics create(SparkContext context) {
    long initial = SQLMetrics.createSizeMetric$default$3(); // Scala's default argument
    return new OperatorMetrics(SQLMetrics.createSizeMetric(context, "peak memory", initial),
        SQLMetrics.createSizeMetric(context, "spill size", initial));
  }

  /** The metrics by name, for {@code SparkPlan.metrics}. */
  Map<String, SQLMetric> byName() {
    return scala.collection.immutable.Map$.MODULE$.from(scala.jdk.javaapi.CollectionConverters.asScala(
        java.util.Map.of(PEAK_MEMORY, peakMemory, SPILL_SIZE, spillSize)));
  }

  /** Adds what {@code resources} held and spilled, once they are closed. */
  void record(TaskResources resources) {
    peakMemory.add(resources.peakBytes());
    spillSize.add(resources.spilledBytesOfTask());
  }
}
