package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.spill.SpillDirectory;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spark asks memwall for memory back: in an executor whose off-heap pool holds one side of a sort-merge
 * join's sorted rows per task but not both, the sorted side held for the join goes to disk when the other
 * side's sort needs the memory (Spark calls the lease's {@code spill}), is read back from there, and the
 * join gives Spark's answer, leaving no memory and no spill file. A sort Spark refuses more memory than it
 * granted spills instead of failing.
 */
class SpillOnRequestTest {
  static SparkSession spark;

  @BeforeAll
  static void setUp() {
    spark = SparkTestSession.start("SpillOnRequestTest", "spark.sql.extensions", MemwallExtensions.class.getName(),
        "spark.memory.offHeap.enabled", "true", "spark.memory.offHeap.size", "20m",
        "spark.sql.autoBroadcastJoinThreshold", "-1", MemwallSettings.JOINS, "false");
    spark.range(0, 80_000, 1, 2).selectExpr("id % 60000 as k", "id as v", "concat('left row ', id) as s")
        .createOrReplaceTempView("l");
    spark.range(0, 80_000, 1, 2).selectExpr("(id * 7) % 60000 as k", "id as w", "concat('right row ', id) as r")
        .createOrReplaceTempView("r");
    spark.range(0, 150_000, 1, 2).selectExpr("id % 120000 as k", "id as v", "concat('big row ', id) as s")
        .createOrReplaceTempView("big");
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  @Test
  void aSortedSideHeldForAJoinGoesToDiskWhenTheOtherSideNeedsTheMemory() {
    int directories = SpillDirectory.liveDirectories();
    long requests = TaskResources.spillsOnRequest();
    String sql = "select l.k, l.v, l.s, r.w, r.r from l join r on l.k = r.k";
    Dataset<Row> memwall = SparkTestSession.assertSameWithMemwall(spark, sql, SparkTestSession::sortedRows).memwall();
    SparkTestSession.assertTaskResourcesFreed();
    List<String> explained = MemwallExtensions.explain(memwall);
    assertEquals(2, explained.stream().filter(line -> line.startsWith("memwall runs: MemwallSort")).count(),
        explained.toString());
    assertTrue(TaskResources.spillsOnRequest() > requests, "Spark asked a held side to spill, and it did");
    assertEquals(directories, SpillDirectory.liveDirectories(), "every spill directory was removed");
  }

  /**
   * A sort that collected its rows within what Spark granted, and whose sorted copy Spark then refuses (the
   * pool is shared, below the task's memwall limit), spills its rows as runs and merges them instead of
   * failing.
   */
  @Test
  void aSortRefusedTheMemoryOfItsSortedCopySpillsInstead() {
    int directories = SpillDirectory.liveDirectories();
    long spilled = TaskResources.spilledBytes();
    SparkTestSession.assertSameWithMemwall(spark, "select * from big order by k, v", SparkTestSession::orderedRows);
    SparkTestSession.assertTaskResourcesFreed();
    assertTrue(TaskResources.spilledBytes() > spilled, "the sort spilled");
    assertEquals(directories, SpillDirectory.liveDirectories(), "every spill directory was removed");
  }
}
