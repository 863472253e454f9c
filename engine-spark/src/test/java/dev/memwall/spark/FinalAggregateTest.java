package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link MemwallFinalAggregateExec}: final aggregations memwall merges give what Spark gives alone, over
 * partial rows of any source (here Spark's own rows, so that every partial aggregation is Spark's), with
 * nulls, NaN, -0.0 and infinities, duplicates, one key holding most rows, no input rows, and booleans, dates,
 * strings and decimals as keys; a final aggregation memwall does not merge stays Spark's with the reason;
 * a decimal sum beyond memwall's 18 digits fails with an {@link ArithmeticException}.
 */
class FinalAggregateTest {
  static SparkSession spark;

  @BeforeAll
  static void setUp() {
    spark = SparkTestSession.start("FinalAggregateTest", "spark.sql.extensions", MemwallExtensions.class.getName());
    StructType schema = new StructType()
        .add("k", DataTypes.IntegerType).add("s", DataTypes.StringType).add("b", DataTypes.BooleanType)
        .add("d", DataTypes.DateType).add("x", DataTypes.DoubleType).add("l", DataTypes.LongType)
        .add("dec", DataTypes.createDecimalType(12, 2)).add("big", DataTypes.createDecimalType(18, 0));
    Random random = new Random(22);
    double[] doubles = {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.5, -2.25};
    String[] words = {"", "a", "b", "dürüm", "élan", "zebra"};
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 40_000; i++) {
      boolean skewed = random.nextInt(4) != 0; // three rows in four share key 7
      rows.add(RowFactory.create(
          random.nextInt(9) == 0 ? null : skewed ? 7 : random.nextInt(3000),
          random.nextInt(9) == 0 ? null : words[random.nextInt(words.length)],
          random.nextInt(9) == 0 ? null : random.nextBoolean(),
          random.nextInt(9) == 0 ? null : java.time.LocalDate.ofEpochDay(9000 + random.nextInt(400)),
          random.nextInt(9) == 0 ? null : random.nextInt(3) == 0 ? doubles[random.nextInt(doubles.length)]
              : random.nextInt(2001) - 1000.0,
          random.nextInt(9) == 0 ? null : random.nextLong(-1L << 40, 1L << 40),
          random.nextInt(9) == 0 ? null : BigDecimal.valueOf(random.nextLong(-10_000_000_000L, 10_000_000_000L), 2),
          random.nextInt(9) == 0 ? null : new BigDecimal(random.nextLong(100_000_000_000_000_000L)
              + 800_000_000_000_000_000L)));
    }
    spark.createDataFrame(rows, schema).createOrReplaceTempView("t");
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  /** Runs {@code sql} with memwall's extension and without; returns memwall's explanation. */
  private static List<String> assertSameAsSpark(String sql) {
    Dataset<Row> memwall = SparkTestSession.assertSameWithMemwall(spark, sql, SparkTestSession::sortedRowsZeroAsZero).memwall();
    SparkTestSession.assertTaskResourcesFreed();
    return MemwallExtensions.explain(memwall);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select k, count(*), count(x), sum(l), sum(dec), avg(dec), avg(l), avg(x), min(x), max(x) from t group by k",
      "select s, b, min(d), max(d), min(dec), max(dec), sum(x), count(s) from t group by s, b",
      "select x, count(*), sum(dec) from t group by x",
      "select d, dec, count(*), max(l) from t group by d, dec",
      "select count(*), sum(dec), avg(dec), min(x), max(l), sum(x) from t",
      "select count(*), sum(dec), avg(dec), min(x), max(l) from t where k = -1",
      "select k, sum(dec) * 2 as twice, avg(l) + 1, count(*) from t where x > 0 group by k having count(*) > 1",
      "select count(*), sum(dec), avg(x), min(l) < 5 from t where s = 'no such word'",
      "select k, count(*) from t group by k",
  })
  void mergesAsSparkDoes(String sql) {
    List<String> explained = assertSameAsSpark(sql);
    assertTrue(explained.stream().anyMatch(line -> line.contains("MemwallFinalAggregate")), explained + "\n" + sql);
  }

  @Test
  void groupsNoRowsAsSpark() {
    // Spark folds the filter over its local rows and drops the aggregation of no rows: only the answer is checked
    assertSameAsSpark("select k, count(*), sum(dec), avg(x) from t where s = 'no such word' group by k");
  }

  @Test
  void mergesWithoutAdaptiveExecution() {
    spark.conf().set("spark.sql.adaptive.enabled", false);
    try {
      List<String> explained = assertSameAsSpark("select s, sum(dec), avg(l), min(x) from t group by s");
      assertTrue(explained.stream().anyMatch(line -> line.contains("MemwallFinalAggregate")), explained.toString());
    } finally {
      spark.conf().unset("spark.sql.adaptive.enabled");
    }
  }

  @Test
  void leavesWhatItDoesNotMergeToSparkAndSaysWhy() {
    List<String> explained = assertSameAsSpark("select k, var_samp(x), count(*) from t group by k");
    assertTrue(explained.stream().noneMatch(line -> line.contains("MemwallFinalAggregate")), explained.toString());
    assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall leaves") && line.contains("var_samp")),
        explained.toString());
    spark.conf().set("spark.sql.ansi.enabled", false);
    try {
      explained = assertSameAsSpark("select k, sum(l) from t group by k");
      assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall leaves") && line.contains("wraps")),
          explained.toString());
    } finally {
      spark.conf().unset("spark.sql.ansi.enabled");
    }
  }

  @Test
  void failsADecimalSumBeyondEighteenDigits() {
    // Spark's decimal(28, 0) holds the sum; memwall's scaled int64 does not
    Exception failure = assertThrows(Exception.class, () -> spark.sql("select b, sum(big) from t group by b")
        .collectAsList());
    Throwable cause = failure;
    while (cause != null && !(cause instanceof ArithmeticException)) {
      cause = cause.getCause();
    }
    assertTrue(cause instanceof ArithmeticException, () -> "not an ArithmeticException: " + failure);
    SparkTestSession.assertTaskResourcesFreed();
  }
}
