package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;

/**
 * The {@code slow(id)} UDF of the tests that kill a running query, and the kill itself: the UDF
 * returns its argument after 20 ms and counts down a latch, so that a test knows the query's tasks
 * run before it kills them. One test at a time uses it (the module's test classes run one after
 * another).
 */
final class SlowUdf {
  private static volatile CountDownLatch started = new CountDownLatch(1);

  private SlowUdf() {}

  /** Registers {@code slow} with {@code spark}. */
  static void register(SparkSession spark) {
    spark.udf().register("slow", (UDF1<Integer, Integer>) id -> {
      started.countDown();
      Thread.sleep(20);
      return id;
    }, DataTypes.IntegerType);
  }

  /**
   * Runs {@code query} (which calls {@code slow}) on a thread of its own in Spark job group {@code
   * group}; once its tasks run, checks {@code whileRunning}, cancels the group and waits for the query
   * to return. Returns what the query threw (null if it finished first).
   */
  static Throwable killWhileRunning(SparkSession spark, String group, Runnable query, Runnable whileRunning)
      throws InterruptedException {
    CountDownLatch running = new CountDownLatch(1);
    started = running;
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    Thread thread = new Thread(() -> {
      spark.sparkContext().setJobGroup(group, "a query the test kills", true);
      try {
        query.run();
      } catch (Throwable e) {
        outcome.set(e);
      }
    });
    thread.start();
    assertTrue(running.await(60, TimeUnit.SECONDS), "the query's tasks run");
    whileRunning.run();
    spark.sparkContext().cancelJobGroup(group);
    thread.join(TimeUnit.SECONDS.toMillis(60));
    assertFalse(thread.isAlive(), "the cancelled query returned");
    return outcome.get();
  }
}
