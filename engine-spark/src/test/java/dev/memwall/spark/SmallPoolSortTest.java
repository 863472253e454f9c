package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.spill.SpillDirectory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * memwall's sort in tasks whose share of Spark's off-heap pool (20 MiB for two tasks) is far below
 * memwall's task limit: the sort sizes its runs from Spark's estimate of a task's share rather than from
 * the limit, so it spills instead of being refused memory Spark does not have, and gives Spark's answer in
 * Spark's order, leaving no spill file.
 */
class SmallPoolSortTest {
  static SparkSession spark;

  @BeforeAll
  static void setUp() {
    spark = SparkTestSession.startInOffHeapPool("SmallPoolSortTest", "20m");
    spark.range(0, 150_000, 1, 2).selectExpr("id % 120000 as k", "id as v", "concat('big row ', id) as s")
        .createOrReplaceTempView("big");
    spark.range(0, 600_000, 1, 2).selectExpr("id % 120000 as k", "id as v", "concat('huge row ', id) as s")
        .createOrReplaceTempView("huge");
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  /**
   * Rows a few times ({@code big}) or many times ({@code huge}) what Spark grants a task: runs are cut at
   * the share Spark's pages suggest, not at the task limit's, which Spark would refuse long before.
   */
  @ParameterizedTest
  @ValueSource(strings = {"big", "huge"})
  void aSortLargerThanWhatSparkGrantsSpills(String table) {
    int directories = SpillDirectory.liveDirectories();
    long spilled = TaskResources.spilledBytes();
    SparkTestSession.assertSameWithMemwall(spark, "select * from " + table + " order by k, v",
        SparkTestSession::orderedRows);
    SparkTestSession.assertTaskResourcesFreed();
    assertTrue(TaskResources.spilledBytes() > spilled, "the sort spilled");
    assertEquals(directories, SpillDirectory.liveDirectories(), "every spill directory was removed");
  }
}
