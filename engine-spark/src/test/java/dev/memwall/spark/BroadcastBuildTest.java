package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkException;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broadcast join sides memwall builds once per executor and shares between the tasks
 * ({@link BroadcastBuilds}), on {@code local[2]} (one executor, two tasks at once): a query whose probe
 * side has six input partitions builds each broadcast once and answers as Spark does; no task holds a
 * build after the query, also when it is killed while probing; builds are freed once Spark drops their
 * broadcast; a build larger than the executor's broadcast memory
 * ({@value MemwallSettings#EXECUTOR_BROADCAST_MEMORY}, small here) fails by name and leaves nothing.
 */
class BroadcastBuildTest {
  /** The executor's broadcast memory in this session: the dimension's builds fit, the fact table's does not. */
  static final String BROADCAST_MEMORY = "2m";
  static final int FILES = 6;

  @TempDir static Path dir;
  static SparkSession spark;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SparkTestSession.start("BroadcastBuildTest", "spark.sql.extensions", MemwallExtensions.class.getName(),
        MemwallSettings.EXECUTOR_BROADCAST_MEMORY, BROADCAST_MEMORY);
    Path fact = Files.createDirectories(dir.resolve("fact"));
    Path dim = Files.createDirectories(dir.resolve("dim"));
    try (EngineMemory memory = EngineMemory.create("BroadcastBuildTest data")) {
      for (int i = 0; i < FILES; i++) {
        JoinFiles.write(fact.resolve("part-" + i + ".arrow"), 10_000, 0.02, 10 + i, memory);
      }
      JoinFiles.write(dim.resolve("a.arrow"), 300, 0.05, 3, memory);
    }
    spark.read().format("memwall").load(fact.toString()).createOrReplaceTempView("fact");
    spark.read().format("memwall").load(dim.toString()).createOrReplaceTempView("dim");
    SlowUdf.register(spark);
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  @AfterEach
  void nothingHeld() {
    SparkTestSession.assertTaskResourcesFreed();
    assertEquals(0, BroadcastBuilds.userCount(), "a task still uses a shared build");
  }

  /** Spark's rows of {@code sql} alone, then memwall's (checked the same); returns the builds memwall made. */
  private static long buildsOfSameAsSpark(String sql) {
    List<String> expected = SparkTestSession.sortedRowsWithoutMemwall(spark, sql);
    long before = BroadcastBuilds.buildCount();
    var memwall = spark.sql(sql);
    assertEquals(expected, SparkTestSession.sortedRows(memwall), sql);
    List<String> explained = MemwallExtensions.explain(memwall);
    assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs: MemwallHashJoin")),
        explained + "\n" + sql);
    return BroadcastBuilds.buildCount() - before;
  }

  @Test
  void eachBroadcastIsBuiltOncePerExecutor() {
    assertTrue(spark.table("fact").rdd().getNumPartitions() >= FILES, "a task per file at least");
    assertEquals(1, buildsOfSameAsSpark(
        "select /*+ broadcast(d) */ f.id, f.s, d.id, d.s, d.v from fact f join dim d on f.k = d.k"));
    assertEquals(2, buildsOfSameAsSpark("select /*+ broadcast(a, b) */ f.id, a.s, b.v from fact f"
        + " join dim a on f.k = a.k left join dim b on f.g = b.g"));
    spark.conf().set("spark.sql.adaptive.enabled", false);
    try {
      assertEquals(1, buildsOfSameAsSpark(
          "select /*+ broadcast(d) */ f.id, f.v from fact f left semi join dim d on f.k = d.k where f.x > 0.0"));
    } finally {
      spark.conf().unset("spark.sql.adaptive.enabled");
    }
  }

  @Test
  void concurrentQueriesEachBuildTheirOwnBroadcastOnce() throws Exception {
    String sql = "select /*+ broadcast(d) */ f.id, f.v, d.id, d.s from fact f join dim d on f.k = d.k where f.g < 5";
    List<String> expected = SparkTestSession.sortedRowsWithoutMemwall(spark, sql);
    long before = BroadcastBuilds.buildCount();
    ExecutorService queries = Executors.newFixedThreadPool(2);
    try {
      List<Future<List<String>>> answers = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        answers.add(queries.submit(() -> SparkTestSession.sortedRows(spark.sql(sql))));
      }
      for (Future<List<String>> answer : answers) {
        assertEquals(expected, answer.get(120, TimeUnit.SECONDS));
      }
    } finally {
      queries.shutdownNow();
    }
    assertEquals(2, BroadcastBuilds.buildCount() - before, "one build per query's broadcast, not per task");
  }

  @Test
  void buildsAreFreedOnceSparkDropsTheirBroadcast() throws Exception {
    buildsOfSameAsSpark("select /*+ broadcast(d) */ f.id, d.s from fact f join dim d on f.k = d.k");
    assertTrue(BroadcastBuilds.liveCount() > 0, "kept for the executor's later tasks while the broadcast lives");
    assertTrue(BroadcastBuilds.allocatedBytes() > 0);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (BroadcastBuilds.liveCount() > 0 && System.nanoTime() < deadline) {
      System.gc(); // the driver's broadcast, then (once Spark's cleaner removed its blocks) its value
      Thread.sleep(100);
    }
    assertEquals(0, BroadcastBuilds.liveCount(), "builds of broadcasts Spark dropped");
    assertEquals(0, BroadcastBuilds.allocatedBytes());
  }

  @Test
  void aBuildLargerThanTheExecutorsBroadcastMemoryFailsByNameAndLeavesNothing() {
    long leaks = TaskResources.leakCount();
    long builtBefore = BroadcastBuilds.buildCount();
    int liveBefore = BroadcastBuilds.liveCount();
    SparkException failure = assertThrows(SparkException.class, () -> spark.sql(
        "select /*+ broadcast(f) */ d.id, f.s from dim d join fact f on d.k = f.k").collectAsList());
    assertTrue(failure.getMessage().contains("BudgetExceededException")
        && failure.getMessage().contains(MemwallSettings.EXECUTOR_BROADCAST_MEMORY), failure.getMessage());
    SparkTestSession.assertTaskResourcesFreed();
    assertEquals(leaks, TaskResources.leakCount());
    assertEquals(builtBefore, BroadcastBuilds.buildCount(), "no build made");
    assertTrue(BroadcastBuilds.liveCount() <= liveBefore, "nothing half-built kept");
    assertEquals(1, buildsOfSameAsSpark("select /*+ broadcast(d) */ d.id, f.s from fact f join dim d on d.k = f.k"),
        "a build that fits is made afterwards");
  }

  @Test
  void aTaskKilledWhileProbingReleasesItsBuild() throws Exception {
    long leaks = TaskResources.leakCount();
    String sql = "select /*+ broadcast(d) */ slow(f.id), d.v from fact f join dim d on f.k = d.k";
    Throwable outcome = SlowUdf.killWhileRunning(spark, "kill-probe", () -> spark.sql(sql).collectAsList(),
        () -> assertTrue(BroadcastBuilds.userCount() > 0, "a task uses the shared build"));
    assertInstanceOf(SparkException.class, outcome);
    SparkTestSession.assertTaskResourcesFreed();
    assertEquals(0, BroadcastBuilds.userCount(), "the killed tasks released the build");
    assertEquals(leaks, TaskResources.leakCount());
    assertEquals(1, buildsOfSameAsSpark("select /*+ broadcast(d) */ f.id, d.v from fact f join dim d on f.k = d.k"));
  }
}
