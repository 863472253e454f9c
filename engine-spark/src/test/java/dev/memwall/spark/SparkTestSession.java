package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** The Spark session the tests of one class share: local[2], no UI, LocalDate for dates, leaks fail tasks. */
final class SparkTestSession {
  private SparkTestSession() {}

  /** A new local session; {@link #stop} it after the class. */
  static SparkSession start(String name, String... settings) {
    SparkSession.Builder builder = SparkSession.builder()
        .master("local[2]")
        .appName(name)
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.datetime.java8API.enabled", "true")
        // a task that ends with execution memory still acquired (a lease not given back) fails
        .config("spark.unsafe.exceptionOnMemoryLeak", "true")
        // every kind of memwall operator, including those off by default, so that the tests run them
        .config(MemwallSettings.JOINS, "true")
        .config(MemwallSettings.PARTIAL_AGGREGATION, "true")
        .config(MemwallSettings.FINAL_AGGREGATION, "true")
        .config(MemwallSettings.SORTS, "true");
    for (int i = 0; i + 1 < settings.length; i += 2) {
      builder.config(settings[i], settings[i + 1]);
    }
    return builder.getOrCreate();
  }

  /**
   * A new local session with memwall's extension, in which Spark's off-heap pool of {@code pool} (a Spark size)
   * holds memwall's memory and Spark's, joins are Spark's sort-merge joins (no broadcasts, memwall's joins
   * off) whose sorts are memwall's, and {@code settings} (pairs of key and value) apply.
   */
  static SparkSession startInOffHeapPool(String name, String pool, String... settings) {
    List<String> all = new ArrayList<>(List.of("spark.sql.extensions", MemwallExtensions.class.getName(),
        "spark.memory.offHeap.enabled", "true", "spark.memory.offHeap.size", pool,
        "spark.sql.autoBroadcastJoinThreshold", "-1", MemwallSettings.JOINS, "false"));
    all.addAll(List.of(settings));
    return start(name, all.toArray(String[]::new));
  }

  static void stop(SparkSession spark) {
    if (spark != null) {
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
  }

  /**
   * Waits until every task's memwall resources are closed (Spark kills the other tasks of a failed
   * stage, and completion listeners run, after the driver has its answer), then checks that nothing is
   * held: no open resources, no memwall memory, no memory leased from Spark, no use of a shared
   * broadcast build (the builds themselves are the executor's, freed with their broadcast).
   */
  static void assertTaskResourcesFreed() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while ((TaskResources.openCount() > 0 || BroadcastBuilds.userCount() > 0) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for the tasks' resources", e);
      }
    }
    assertEquals(0, TaskResources.openCount(), "task resources left open");
    assertEquals(0, TaskResources.allocatedBytes(), "memwall memory still held");
    assertEquals(0, TaskResources.leasedBytes(), "memory leased from Spark");
    assertEquals(0, BroadcastBuilds.userCount(), "a task's use of a shared broadcast build not released");
  }

  /** The rows of {@code dataset} as lists of Spark's Java values, in the order Spark returns them. */
  static List<List<Object>> rows(Dataset<Row> dataset) {
    List<List<Object>> rows = new ArrayList<>();
    for (Row row : dataset.collectAsList()) {
      List<Object> values = new ArrayList<>(row.size());
      for (int i = 0; i < row.size(); i++) {
        values.add(row.get(i));
      }
      rows.add(values);
    }
    return rows;
  }

  /** The rows of {@code dataset} as text, sorted: for comparing results whose order no query fixes. */
  static List<String> sortedRows(Dataset<Row> dataset) {
    List<String> rows = new ArrayList<>();
    for (Row row : dataset.collectAsList()) {
      rows.add(row.toString());
    }
    rows.sort(Comparator.naturalOrder());
    return rows;
  }

  /**
   * As {@link #sortedRows}, with -0.0 read as 0.0: Spark's MIN and MAX keep whichever of the two they meet
   * first (they compare equal), and rows reach them in no fixed order.
   */
  static List<String> sortedRowsZeroAsZero(Dataset<Row> dataset) {
    List<String> rows = new ArrayList<>();
    for (List<Object> row : rows(dataset)) {
      rows.add(row.stream().map(v -> v instanceof Double d && d == 0.0 ? 0.0 : v).toList().toString());
    }
    rows.sort(Comparator.naturalOrder());
    return rows;
  }

  /** The rows of {@code sql} as text, sorted, run with memwall's operators off ({@value MemwallSettings#ACCELERATION}). */
  static List<String> sortedRowsWithoutMemwall(SparkSession spark, String sql) {
    spark.conf().set(MemwallSettings.ACCELERATION, false);
    try {
      return sortedRows(spark.sql(sql));
    } finally {
      spark.conf().unset(MemwallSettings.ACCELERATION);
    }
  }

  /** A query run with memwall's operators, and its answer (the same as without them). */
  record Answered<T>(Dataset<Row> memwall, T answer) {}

  /**
   * Runs {@code sql} without memwall's operators ({@value MemwallSettings#ACCELERATION} false), then with them,
   * and checks that {@code answer} of both is the same.
   */
  static <T> Answered<T> assertSameWithMemwall(SparkSession spark, String sql,
      java.util.function.Function<Dataset<Row>, T> answer) {
    spark.conf().set(MemwallSettings.ACCELERATION, false);
    T expected;
    try {
      expected = answer.apply(spark.sql(sql));
    } finally {
      spark.conf().set(MemwallSettings.ACCELERATION, true);
    }
    Dataset<Row> memwall = spark.sql(sql);
    assertEquals(expected, answer.apply(memwall), sql);
    return new Answered<>(memwall, expected);
  }

  /** The rows of {@code dataset} as text, in the order Spark returns them. */
  static List<String> orderedRows(Dataset<Row> dataset) {
    return rows(dataset).stream().map(Object::toString).toList();
  }

  /**
   * Makes a view {@code name} of the memwall data set in {@code dir} and a view {@code reference} of the
   * same rows as a local relation, which Spark computes alone.
   */
  static void viewWithReference(SparkSession spark, java.nio.file.Path dir, String name, String reference) {
    spark.read().format("memwall").load(dir.toString()).createOrReplaceTempView(name);
    Dataset<Row> all = spark.table(name);
    spark.createDataFrame(all.collectAsList(), all.schema()).createOrReplaceTempView(reference);
  }
}
