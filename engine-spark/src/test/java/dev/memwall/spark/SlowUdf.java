package dev.memwall.spark;

import java.util.concurrent.CountDownLatch;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;

/**
 * The {@code slow(id)} UDF of the tests that kill a running query: it returns its argument after 20
 * ms and counts down the latch of the last {@link #expect}, so that a test knows the query's tasks run
 * before it kills them. One test at a time uses it (the module's test classes run one after another).
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

  /** A latch the next rows through {@code slow} count down; call it before starting the query. */
  static CountDownLatch expect() {
    started = new CountDownLatch(1);
    return started;
  }
}
