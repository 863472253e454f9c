package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.SparkException;
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
 * {@link MemwallExtensions} on Spark's broadcast hash joins ({@link BroadcastJoinRule}): every join type
 * memwall runs gives what Spark gives alone over the same files (skewed and duplicate keys, null keys on
 * both sides, filters pushed into the probe scan, empty build sides, joins stacked in one pipeline), with
 * and without adaptive execution; the joins memwall does not run stay Spark's with the reason; every
 * task's memory is freed, also when the query is cancelled.
 */
class JoinAccelerationTest {
  @TempDir static Path dir;
  static SparkSession spark;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SparkTestSession.start("JoinAccelerationTest", "spark.sql.extensions", MemwallExtensions.class.getName());
    Path fact = Files.createDirectories(dir.resolve("fact"));
    Path dim = Files.createDirectories(dir.resolve("dim"));
    try (EngineMemory memory = EngineMemory.create("JoinAccelerationTest data")) {
      JoinFiles.write(fact.resolve("a.arrow"), 5000, 0.3, 1, memory);
      JoinFiles.write(fact.resolve("b.arrow"), 1700, 0.1, 2, memory);
      JoinFiles.write(dim.resolve("a.arrow"), 260, 0.05, 3, memory);
    }
    spark.read().format("memwall").load(fact.toString()).createOrReplaceTempView("fact");
    spark.read().format("memwall").load(dim.toString()).createOrReplaceTempView("dim");
    SlowUdf.register(spark);
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  /** Runs {@code sql} without memwall, then with it; checks the rows are the same; returns memwall's explanation. */
  private static List<String> assertSameAsSpark(String sql) {
    List<String> expected = SparkTestSession.sortedRowsWithoutMemwall(spark, sql);
    Dataset<Row> memwall = spark.sql(sql);
    assertEquals(expected, SparkTestSession.sortedRows(memwall), sql);
    return MemwallExtensions.explain(memwall);
  }

  private static void assertJoinRuns(List<String> explained, String sql) {
    assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs: MemwallHashJoin")),
        explained + "\n" + sql);
    assertTrue(explained.stream().noneMatch(line -> line.startsWith("memwall leaves") && line.contains("Join")),
        explained + "\n" + sql);
  }

  private static void assertLeftToSpark(List<String> explained, String reason, String sql) {
    assertTrue(explained.stream().noneMatch(line -> line.startsWith("memwall runs: MemwallHashJoin")),
        explained + "\n" + sql);
    assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall leaves to Spark: BroadcastHashJoin")
        && line.contains(reason)), explained + "\n" + sql);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select /*+ broadcast(d) */ f.id, f.k, f.s, f.v, d.id, d.s, d.x, d.v from fact f join dim d on f.k = d.k",
      "select /*+ broadcast(d) */ f.id, f.x, d.id, d.g, d.kd from fact f left join dim d on f.k = d.k",
      "select /*+ broadcast(d) */ d.id, d.v, f.id, f.g from dim d right join fact f on d.g = f.g",
      "select /*+ broadcast(d) */ d.id, d.s, f.id, f.v from dim d join fact f on d.k = f.k",
      "select /*+ broadcast(d) */ f.* from fact f left semi join dim d on f.k = d.k",
      "select /*+ broadcast(d) */ f.* from fact f left anti join dim d on f.k = d.k",
      "select /*+ broadcast(d) */ f.id, d.id from fact f join dim d on f.k = d.k and f.g = d.g",
      "select /*+ broadcast(d) */ f.id, d.v from fact f join dim d on f.id = d.id where f.v > 0 and f.s = 'fig'",
      "select /*+ broadcast(a, b) */ f.id, a.id, b.v from fact f join dim a on f.k = a.k join dim b on f.g = b.g",
      "select /*+ broadcast(a, b) */ f.id, a.id, b.v from fact f join dim a on f.k = a.k left join dim b on a.id = b.id",
      "select /*+ broadcast(d) */ d.g, count(*), sum(f.v), min(f.x) from fact f join dim d on f.k = d.k group by d.g",
  })
  void joinsAsSparkDoes(String sql) {
    assertJoinRuns(assertSameAsSpark(sql), sql);
  }

  /**
   * A join memwall runs under a final aggregation memwall merges (Spark's partial aggregation between
   * them, over the join's batches): the same rows as Spark's, counting and summing the build side's nulls
   * as Spark does, with and without grouping keys.
   */
  @ParameterizedTest
  @ValueSource(strings = {
      "select /*+ broadcast(d) */ count(d.g) from fact f join dim d on f.k = d.k",
      "select /*+ broadcast(d) */ count(d.g), sum(d.v), sum(f.v), count(*) from fact f join dim d on f.k = d.k",
      "select /*+ broadcast(d) */ count(d.g), min(d.x) from fact f join dim d on f.k = d.k where f.x > 0.0",
      "select /*+ broadcast(d) */ f.g, count(d.g), max(d.v) from fact f left join dim d on f.k = d.k group by f.g",
      "select /*+ broadcast(d) */ d.s, count(*), sum(f.v) from fact f join dim d on f.k = d.k group by d.s",
      "select /*+ broadcast(d) */ count(f.g), sum(f.v) from fact f left semi join dim d on f.k = d.k",
  })
  void aJoinUnderAFinalAggregationBothInMemwall(String sql) {
    List<String> explained = assertSameAsSpark(sql);
    assertJoinRuns(explained, sql);
    assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs: MemwallFinalAggregate")),
        explained + "\n" + sql);
  }

  @Test
  void joinsWithoutAdaptiveExecution() {
    spark.conf().set("spark.sql.adaptive.enabled", false);
    try {
      String sql = "select /*+ broadcast(a, b) */ f.id, a.v, b.id from fact f join dim a on f.k = a.k"
          + " left join dim b on f.g = b.g where f.x > 0.0";
      assertJoinRuns(assertSameAsSpark(sql), sql);
    } finally {
      spark.conf().unset("spark.sql.adaptive.enabled");
    }
  }

  /** Adaptive execution drops a join whose broadcast side turned out empty; without it, memwall joins nothing. */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void joinsAnEmptyBuildSide(boolean adaptive) {
    spark.conf().set("spark.sql.adaptive.enabled", adaptive);
    try {
      for (String join : List.of("inner", "left", "left anti", "left semi")) {
        String sql = "select /*+ broadcast(d) */ f.* from fact f " + join
            + " join (select * from dim where g > 100) d on f.k = d.k";
        List<String> explained = assertSameAsSpark(sql);
        if (!adaptive) {
          assertJoinRuns(explained, sql);
        }
      }
    } finally {
      spark.conf().unset("spark.sql.adaptive.enabled");
    }
  }

  @Test
  void leavesWhatItDoesNotJoinToSparkAndSaysWhy() {
    String sql = "select /*+ broadcast(d) */ f.id, d.id from fact f join dim d on f.k = d.k and f.v > d.v";
    assertLeftToSpark(assertSameAsSpark(sql), "an extra join condition", sql);
    sql = "select /*+ broadcast(d) */ f.id, d.id from fact f join dim d on f.s = d.s";
    assertLeftToSpark(assertSameAsSpark(sql), "of type string", sql);
    sql = "select /*+ broadcast(d) */ f.id, d.id from fact f join dim d on f.kd = d.kd";
    assertLeftToSpark(assertSameAsSpark(sql), "is computed, not a column", sql);
    sql = "select id from fact where k not in (select k from dim where k is not null)";
    assertLeftToSpark(assertSameAsSpark(sql), "null-aware anti join", sql);
    sql = "select /*+ broadcast(d) */ f.g, d.id from (select g, sum(v) as v from fact group by g) f"
        + " join dim d on f.g = d.g";
    assertLeftToSpark(assertSameAsSpark(sql), "not a memwall scan or join", sql);
  }

  @Test
  void explainsTheJoin() {
    Dataset<Row> query = spark.sql("select /*+ broadcast(d) */ f.id, d.v from fact f join dim d on f.k = d.k"
        + " where f.g > 2");
    query.collectAsList();
    String text = query.queryExecution().explainString(ExplainMode.fromString("formatted"));
    assertTrue(text.contains("MemwallHashJoin") && text.contains("INNER join"), text);
  }

  @Test
  void joinsAreSparksUnlessTheSessionTurnsThemOn() {
    spark.conf().unset(MemwallSettings.JOINS); // the test session turns every kind on
    try {
      Dataset<Row> query = spark.sql("select /*+ broadcast(d) */ f.id, d.v from fact f join dim d on f.k = d.k");
      query.collectAsList();
      assertTrue(MemwallExtensions.explain(query).stream().noneMatch(line -> line.startsWith("memwall runs")),
          MemwallExtensions.explain(query).toString());
    } finally {
      spark.conf().set(MemwallSettings.JOINS, true);
    }
  }

  @Test
  void switchesOff() {
    spark.conf().set(MemwallSettings.ACCELERATION, false);
    try {
      Dataset<Row> query = spark.sql("select /*+ broadcast(d) */ f.id, d.v from fact f join dim d on f.k = d.k");
      query.collectAsList();
      assertTrue(MemwallExtensions.explain(query).isEmpty(), MemwallExtensions.explain(query).toString());
    } finally {
      spark.conf().unset(MemwallSettings.ACCELERATION);
    }
  }

  @Test
  void freesEveryTasksMemory() {
    long leaks = TaskResources.leakCount();
    assertSameAsSpark("select /*+ broadcast(a, b) */ f.id, a.s, b.s from fact f join dim a on f.k = a.k"
        + " join dim b on f.g = b.g");
    SparkTestSession.assertTaskResourcesFreed();
    assertEquals(leaks, TaskResources.leakCount());
  }

  /**
   * The build sides are the executor's (see {@link BroadcastBuildTest} for one too big for them); a task's
   * own memory holds its input and each slice's joined rows, which a task of 16 KiB cannot hold.
   */
  @Test
  void joinedRowsTooBigForTheTaskFailByName() {
    long leaks = TaskResources.leakCount();
    spark.read().format("memwall").option(MemwallSettings.TASK_MEMORY_OPTION, "16k")
        .load(dir.resolve("fact").toString()).createOrReplaceTempView("small_fact");
    SparkException failure = assertThrows(SparkException.class, () -> spark.sql(
        "select /*+ broadcast(d) */ f.id, d.s from small_fact f join dim d on f.k = d.k").collectAsList());
    assertTrue(failure.getMessage().contains("BudgetExceededException")
        && failure.getMessage().contains("memwall hash join in task")
        && failure.getMessage().contains(MemwallSettings.TASK_MEMORY), failure.getMessage());
    SparkTestSession.assertTaskResourcesFreed();
    assertEquals(leaks, TaskResources.leakCount());
  }

  @Test
  void aCancelledJoinFreesEverything() throws Exception {
    long leaks = TaskResources.leakCount();
    Throwable outcome = SlowUdf.killWhileRunning(spark, "kill-join",
        () -> spark.sql("select /*+ broadcast(d) */ slow(f.id), d.v from fact f join dim d on f.k = d.k").collectAsList(),
        () -> assertTrue(TaskResources.openCount() > 0, "a task is joining"));
    assertInstanceOf(SparkException.class, outcome);
    assertTrue(outcome.getMessage().contains("cancel"), outcome.getMessage());
    SparkTestSession.assertTaskResourcesFreed();
    assertEquals(leaks, TaskResources.leakCount());
  }
}
