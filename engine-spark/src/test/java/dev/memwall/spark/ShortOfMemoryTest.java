package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.spill.SpillDirectory;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partial aggregation memwall runs in tasks whose memory Spark grants holds a fraction of their groups:
 * it emits its groups early, slice by slice, instead of failing, and gives Spark's answer; with less
 * memory than one slice's groups need it fails with memwall's named budget error, freeing everything. A final
 * aggregation whose merged groups do not fit a task's memory spills them, and gives Spark's answer, leaving no
 * spill file.
 */
class ShortOfMemoryTest {
  @TempDir static Path dir;
  static SparkSession spark;
  static Path data;

  @BeforeAll
  static void setUp() {
    spark = SparkTestSession.start("ShortOfMemoryTest", "spark.sql.extensions", MemwallExtensions.class.getName());
    data = dir.resolve("many-groups");
    spark.range(0, 600_000, 1, 2).selectExpr("id % 300000 as k", "id as v", "cast(id % 7 as int) as w")
        .write().format("memwall").mode("overwrite").save(data.toString());
    spark.read().format("memwall").load(data.toString()).createOrReplaceTempView("groups");
  }

  @Test
  void lessMemoryThanOneSliceNeedsFailsWithTheBudgetNamed() {
    spark.conf().set(MemwallSettings.TASK_MEMORY, "16k");
    try {
      Exception e = assertThrows(Exception.class,
          () -> spark.sql("select k, sum(v) from groups group by k").collectAsList());
      StringBuilder causes = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        causes.append(t).append('\n');
      }
      assertTrue(causes.toString().contains("BudgetExceededException")
          && causes.toString().contains(MemwallSettings.TASK_MEMORY), causes.toString());
    } finally {
      spark.conf().unset(MemwallSettings.TASK_MEMORY);
    }
    SparkTestSession.assertTaskResourcesFreed(); // the stage's other task is killed after the driver fails
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  @Test
  void aTaskShortOfMemoryEmitsEarlyAndAnswersAsSpark() {
    String sql = "select k, sum(v), count(*), max(w) from groups group by k";
    spark.conf().set(MemwallSettings.ACCELERATION, false);
    List<String> expected = SparkTestSession.sortedRows(spark.sql(sql));
    spark.conf().set(MemwallSettings.ACCELERATION, true);
    spark.conf().set(MemwallSettings.TASK_MEMORY, "2m"); // 300K groups need several times that (the final ones spill)
    try {
      Dataset<Row> memwall = spark.sql(sql);
      List<String> actual = SparkTestSession.sortedRows(memwall);
      assertTrue(MemwallExtensions.explain(memwall).stream().anyMatch(line -> line.startsWith("memwall runs")),
          MemwallExtensions.explain(memwall).toString());
      assertEquals(300_000, actual.size());
      assertEquals(expected, actual);
    } finally {
      spark.conf().unset(MemwallSettings.TASK_MEMORY);
    }
    SparkTestSession.assertTaskResourcesFreed();
  }

  @Test
  void aFinalAggregationShortOfMemorySpillsAndAnswersAsSpark() {
    String sql = "select k, sum(v), count(*) from groups group by k";
    spark.conf().set(MemwallSettings.ACCELERATION, false);
    List<String> expected = SparkTestSession.sortedRows(spark.sql(sql));
    spark.conf().set(MemwallSettings.ACCELERATION, true);
    spark.conf().set(MemwallSettings.TASK_MEMORY, "2m"); // enough for the partial slices, not 150K merged groups
    int directories = SpillDirectory.liveDirectories();
    long spilled = TaskResources.spilledBytes();
    try {
      Dataset<Row> memwall = spark.sql(sql);
      assertEquals(expected, SparkTestSession.sortedRows(memwall));
      assertTrue(MemwallExtensions.explain(memwall).stream().anyMatch(line -> line.startsWith("memwall runs: MemwallFinal")),
          MemwallExtensions.explain(memwall).toString());
      assertTrue(TaskResources.spilledBytes() > spilled, "the final aggregation spilled");
      List<MemwallUnaryExec> finals = Plans.memwallOperators(memwall);
      assertEquals(1, finals.size(), finals.toString());
      assertTrue(finals.getFirst().metrics().apply(OperatorMetrics.SPILL_SIZE).value() > 0, "Spark's UI shows the spill");
    } finally {
      spark.conf().unset(MemwallSettings.TASK_MEMORY);
    }
    SparkTestSession.assertTaskResourcesFreed();
    assertEquals(directories, SpillDirectory.liveDirectories(), "every spill directory was removed");
  }
}
