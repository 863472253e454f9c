package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import dev.memwall.core.memory.BudgetExceededException;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A memwall scan inside Spark tasks that fail or are killed: every task's memwall resources are freed
 * (no engine memory allocated, no leak found, the memory lease given back to Spark), and the memory
 * Spark grants is what bounds memwall's budget.
 */
class TaskLifecycleTest {
  @TempDir static Path dir;
  static SparkSession spark;
  static Path data;
  static volatile CountDownLatch taskStarted = new CountDownLatch(1);
  static final AtomicBoolean cancelled = new AtomicBoolean();

  @BeforeAll
  static void setUp() throws Exception {
    spark = SparkTestSession.start("TaskLifecycleTest");
    data = Files.createDirectories(dir.resolve("data"));
    try (EngineMemory memory = EngineMemory.create("TaskLifecycleTest data")) {
      TypedFiles.write(data.resolve("a.arrow"), 0, new int[] {500, 500, 500, 500, 500, 500}, 11, memory);
      TypedFiles.write(data.resolve("b.arrow"), 3000, new int[] {500, 500, 500, 500, 500, 500}, 12, memory);
    }
    spark.udf().register("boom", (UDF1<Integer, Integer>) id -> {
      if (id == 5900) {
        throw new IllegalStateException("boom at " + id);
      }
      return id;
    }, DataTypes.IntegerType);
    SlowUdf.register(spark);
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  private static Dataset<Row> read() {
    return spark.read().format("memwall").load(data.toString());
  }

  /** Waits until every task's memwall resources are closed, then checks nothing is held or leaked. */
  private static void assertAllFreed(long leaksBefore) throws InterruptedException {
    SparkTestSession.assertTaskResourcesFreed();
    assertEquals(leaksBefore, TaskResources.leakCount(), "a task's engine memory found a leak");
  }

  @Test
  void aFailedTaskFreesEverything() throws Exception {
    long leaks = TaskResources.leakCount();
    SparkException failure = assertThrows(SparkException.class,
        () -> read().where("i32 > -900 OR i32 IS NULL").selectExpr("boom(id)").collectAsList());
    assertTrue(String.valueOf(failure.getMessage()).contains("boom at 5900"), failure.getMessage());
    assertAllFreed(leaks);
    assertEquals(6000, read().count(), "and the data set reads again");
  }

  @Test
  void aKilledTaskFreesEverything() throws Exception {
    long leaks = TaskResources.leakCount();
    Throwable outcome = SlowUdf.killWhileRunning(spark, "kill",
        () -> read().where("i64 IS NOT NULL").selectExpr("slow(id)").collectAsList(),
        () -> assertTrue(TaskResources.openCount() > 0, "a task is reading"));
    assertInstanceOf(SparkException.class, outcome);
    assertTrue(outcome.getMessage().contains("cancel"), outcome.getMessage());
    assertAllFreed(leaks);
  }

  @Test
  void sparkGrantsTheBudget() throws Exception {
    long leaks = TaskResources.leakCount();
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    List<String> outcomes = context.parallelize(List.of(1, 2), 2).map(task -> {
      try (TaskResources resources = TaskResources.open("budget test", 8 << 20)) {
        long before = resources.memory().budget().limitBytes();
        resources.memory().allocate(4 << 20).close();
        long granted = resources.memory().budget().limitBytes();
        try {
          resources.memory().allocate(9 << 20).close();
          return "before " + before + ", granted " + granted + ", no limit";
        } catch (BudgetExceededException e) {
          return "before " + before + ", granted " + granted + ": " + e.getMessage();
        }
      }
    }).collect();
    for (String outcome : outcomes) {
      assertTrue(outcome.startsWith("before 0, granted " + (4 << 20) + ": "), outcome);
      assertTrue(outcome.contains(MemwallSettings.TASK_MEMORY) && outcome.contains("Spark granted"), outcome);
    }
    assertAllFreed(leaks);
  }

  @Test
  void aKillReachesMemwallsToken() throws Exception {
    long leaks = TaskResources.leakCount();
    taskStarted = new CountDownLatch(1);
    cancelled.set(false);
    Thread query = new Thread(() -> {
      spark.sparkContext().setJobGroup("token", "a task the test kills", true);
      try {
        JavaSparkContext.fromSparkContext(spark.sparkContext()).parallelize(List.of(1), 1).map(task -> {
          TaskResources resources = TaskResources.open("token test", 1 << 20); // closed by the task's end
          taskStarted.countDown();
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
          while (!resources.token().isCancelled() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
          }
          cancelled.set(resources.token().isCancelled());
          return task;
        }).collect();
      } catch (RuntimeException e) {
        // cancelled, as expected
      }
    });
    query.start();
    assertTrue(taskStarted.await(60, TimeUnit.SECONDS), "the task runs");
    spark.sparkContext().cancelJobGroup("token");
    query.join(TimeUnit.SECONDS.toMillis(60));
    assertAllFreed(leaks);
    assertTrue(cancelled.get(), "the task's interruption cancelled memwall's token");
  }
}
