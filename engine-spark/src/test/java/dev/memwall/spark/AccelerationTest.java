package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.ExplainMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link MemwallExtensions}: partial aggregations over a memwall scan run by memwall give what Spark gives
 * alone over the same rows, for every type, with nulls, empty groups and filters; an aggregation memwall
 * does not compute stays Spark's, with the reason.
 */
class AccelerationTest {
  @TempDir static Path dir;
  static SparkSession spark;
  static Path typed;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SparkTestSession.start("AccelerationTest", "spark.sql.extensions", MemwallExtensions.class.getName());
    typed = Files.createDirectories(dir.resolve("typed"));
    try (EngineMemory memory = EngineMemory.create("AccelerationTest data")) {
      TypedFiles.write(typed.resolve("a.arrow"), 0, new int[] {1000, 0, 1500}, 21, memory);
      TypedFiles.write(typed.resolve("b.arrow"), 2500, new int[] {700}, 22, memory);
    }
    SparkTestSession.viewWithReference(spark, typed, "t", "reference");
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  /** Runs {@code sql} over the memwall table and over the reference rows; returns memwall's explanation. */
  private static List<String> assertSameAsSpark(String sql) {
    Dataset<Row> memwall = spark.sql(sql.formatted("t"));
    List<String> expected = SparkTestSession.sortedRows(spark.sql(sql.formatted("reference")));
    assertEquals(expected, SparkTestSession.sortedRows(memwall), sql);
    return MemwallExtensions.explain(memwall);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select ds, sum(dec), sum(dec128), avg(dec), avg(dec128), count(*), count(i32), sum(i32), avg(i32)"
          + " from %s group by ds",
      "select s, sum(i64), min(i64), max(i64), min(d), max(d), min(dec), max(dec128) from %s where i32 > 0 group by s",
      "select i32, d, count(*), sum(f64), avg(f64), min(i64) from %s where ds in ('apple', 'fig') group by i32, d",
      "select sum(dec * (1 - dec)), sum(dec * dec128 + 1), count(ds) from %s where d >= date '1995-01-01'",
      "select sum(dec), avg(dec), count(*), min(i32) from %s where id < 0",
      "select ds, min(f64), max(f64) from %s where f64 > -100.0 group by ds",
      "select f64, count(*) from %s group by f64",
  })
  void memwallAggregatesAsSparkDoes(String sql) {
    List<String> explained = assertSameAsSpark(sql);
    assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs")), explained + "\n" + sql);
    assertTrue(explained.stream().noneMatch(line -> line.startsWith("memwall leaves")), explained + "\n" + sql);
  }

  @Test
  void explainsWhatMemwallRuns() {
    Dataset<Row> query = spark.sql("select ds, sum(dec) from t where i32 > 0 group by ds");
    query.collectAsList();
    for (String mode : List.of("simple", "extended", "formatted", "cost")) {
      String text = query.queryExecution().explainString(ExplainMode.fromString(mode));
      assertTrue(text.contains("MemwallPartialAggregate"), mode + ":\n" + text);
    }
    String formatted = query.queryExecution().explainString(ExplainMode.fromString("formatted"));
    assertTrue(formatted.contains("i32 > 0"), formatted);
  }

  @Test
  void groupsNoRowsAsSpark() {
    // the partial aggregation produces nothing; adaptive execution then drops it from the final plan
    assertSameAsSpark("select ds, sum(dec) from %s where s = 'no such value' group by ds");
  }

  @Test
  void leavesWhatItDoesNotComputeToSparkAndSaysWhy() {
    List<String> explained = assertSameAsSpark("select ds, sum(dec / 2), count(*) from %s group by ds");
    assertTrue(explained.stream().noneMatch(line -> line.contains("MemwallPartialAggregate")), explained.toString());
    assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall leaves") && line.contains("divide")),
        explained.toString());
    explained = assertSameAsSpark("select count(distinct ds) from %s");
    assertTrue(explained.stream().noneMatch(line -> line.contains("MemwallPartialAggregate")), explained.toString());
  }

  @Test
  void runsWithoutAdaptiveExecution() {
    spark.conf().set("spark.sql.adaptive.enabled", false);
    try {
      List<String> explained =
          assertSameAsSpark("select ds, sum(dec), avg(i32), count(*) from %s where i32 > 0 group by ds");
      assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs")), explained.toString());
    } finally {
      spark.conf().unset("spark.sql.adaptive.enabled");
    }
  }

  @Test
  void switchesOff() {
    spark.conf().set(MemwallSettings.ACCELERATION, false);
    try {
      List<String> explained = assertSameAsSpark("select ds, sum(dec) from %s group by ds");
      assertTrue(explained.isEmpty(), explained.toString());
    } finally {
      spark.conf().unset(MemwallSettings.ACCELERATION);
    }
  }

  @Test
  void freesEveryTasksMemory() throws Exception {
    long leaks = TaskResources.leakCount();
    assertSameAsSpark("select ds, s, sum(dec), count(*) from %s group by ds, s");
    SparkTestSession.assertTaskResourcesFreed();
    assertEquals(leaks, TaskResources.leakCount());
  }
}
