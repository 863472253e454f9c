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
 * Spark asks memwall for memory back: in a task whose off-heap pool (8 MiB) holds one side of a sort-merge
 * join's sorted rows beside the other side's sort but not more, the sorted side held for the join goes to
 * disk when the other side's sort needs the memory (Spark calls the lease's {@code spill}), is read back
 * from there, and the join gives Spark's answer, leaving no memory and no spill file.
 */
class HeldResultSpillTest {
  static SparkSession spark;

  @BeforeAll
  static void setUp() {
    spark = SparkTestSession.startInOffHeapPool("HeldResultSpillTest", "8m", "spark.sql.shuffle.partitions", "1");
    spark.range(0, 20_000, 1, 1).selectExpr("id % 15000 as k", "id as v", "concat('left row ', id) as s")
        .createOrReplaceTempView("l");
    spark.range(0, 300_000, 1, 1).selectExpr("(id * 7) % 15000 as k", "id as w", "concat('right row ', id) as r")
        .createOrReplaceTempView("r");
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
}
