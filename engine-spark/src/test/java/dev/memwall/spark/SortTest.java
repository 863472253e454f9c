package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.spill.SpillDirectory;
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
 * {@link MemwallSortExec} and {@link MemwallTakeOrderedExec}: sorts and {@code ORDER BY ... LIMIT} that
 * memwall runs return the rows Spark returns alone, in Spark's order: nulls first or last in either
 * direction, NaN above every number, -0.0 tied with 0.0 (the next key decides), strings by their UTF-8 bytes
 * (a character beyond the 16-bit range after U+FFFD), decimals, dates and booleans, duplicates, one value
 * holding most rows, no rows; the sorts of a sort-merge join too. A sort larger than its memory spills its runs
 * and gives the same answer, leaving no spill file. A sort by an expression stays Spark's, with the reason.
 */
class SortTest {
  static SparkSession spark;

  @BeforeAll
  static void setUp() {
    spark = SparkTestSession.start("SortTest", "spark.sql.extensions", MemwallExtensions.class.getName());
    StructType schema = new StructType()
        .add("id", DataTypes.IntegerType).add("k", DataTypes.IntegerType).add("s", DataTypes.StringType)
        .add("b", DataTypes.BooleanType).add("d", DataTypes.DateType).add("x", DataTypes.DoubleType)
        .add("l", DataTypes.LongType).add("dec", DataTypes.createDecimalType(12, 2));
    Random random = new Random(23);
    double[] doubles = {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.5, -2.25,
        Double.MIN_VALUE, -Double.MAX_VALUE};
    String[] words = {"", "a", "B", "b", "dürüm", "élan", "zebra", "\uFFFD", "\uD834\uDD1E", "a\u0000"};
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 30_000; i++) {
      rows.add(RowFactory.create(i,
          random.nextInt(9) == 0 ? null : random.nextInt(4) != 0 ? 7 : random.nextInt(3000),
          random.nextInt(9) == 0 ? null : words[random.nextInt(words.length)],
          random.nextInt(9) == 0 ? null : random.nextBoolean(),
          random.nextInt(9) == 0 ? null : java.time.LocalDate.ofEpochDay(9000 + random.nextInt(400)),
          random.nextInt(9) == 0 ? null : random.nextInt(2) == 0 ? doubles[random.nextInt(doubles.length)]
              : random.nextInt(201) - 100.0,
          random.nextInt(9) == 0 ? null : random.nextInt(3) == 0 ? Long.MIN_VALUE + random.nextInt(2)
              : random.nextLong(),
          random.nextInt(9) == 0 ? null : BigDecimal.valueOf(random.nextLong(-10_000_000_000L, 10_000_000_000L), 2)));
    }
    spark.createDataFrame(rows, schema).createOrReplaceTempView("t");
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  /** Runs {@code sql} with memwall's extension and without: the same rows in the same order; memwall's explanation. */
  private static List<String> assertSameAsSpark(String sql) {
    Dataset<Row> memwall = SparkTestSession.assertSameWithMemwall(spark, sql, SparkTestSession::orderedRows).memwall();
    SparkTestSession.assertTaskResourcesFreed();
    return MemwallExtensions.explain(memwall);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select * from t order by x, id",
      "select * from t order by x desc nulls last, id desc",
      "select * from t order by s, id",
      "select * from t order by s desc nulls first, k, id",
      "select * from t order by dec nulls first, d desc, id",
      "select * from t order by b desc, l, id",
  })
  void sortsAsSparkDoes(String sql) {
    List<String> explained = assertSameAsSpark(sql);
    assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs: MemwallSort")), explained + "\n" + sql);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select * from t order by x desc, id limit 25",
      "select id, x * 2, s from t order by x, id limit 10",
      "select * from t order by s nulls first, id desc limit 7 offset 3",
      "select k, count(*) as n, sum(dec) from t group by k order by n desc, k limit 5",
      "select * from t order by l, id limit 20000",
  })
  void takesTheFirstRowsAsSparkDoes(String sql) {
    List<String> explained = assertSameAsSpark(sql);
    assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs: MemwallTakeOrdered")),
        explained + "\n" + sql);
  }

  @Test
  void sortsNoRowsAsSpark() {
    // Spark folds the filter over its local rows and drops the sort of no rows: only the answer is checked
    assertSameAsSpark("select * from t where id < 0 order by x");
  }

  @Test
  void sortsTheSidesOfASortMergeJoin() {
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", -1);
    try {
      String sql = "select a.id, b.id, a.x, b.s from t a join t b on a.k = b.k and a.s = b.s where a.k <> 7";
      Dataset<Row> memwall = SparkTestSession.assertSameWithMemwall(spark, sql, SparkTestSession::sortedRows).memwall();
      List<String> explained = MemwallExtensions.explain(memwall);
      assertTrue(explained.stream().filter(line -> line.startsWith("memwall runs: MemwallSort")).count() >= 2,
          explained.toString());
      SparkTestSession.assertTaskResourcesFreed();
    } finally {
      spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
    }
  }

  @Test
  void aSortLargerThanItsMemorySpillsAndAnswersAsSpark() {
    spark.conf().set(MemwallSettings.TASK_MEMORY, "2m"); // a sort's working memory is half of it: 1 MiB
    int directories = SpillDirectory.liveDirectories();
    try {
      long spilled = TaskResources.spilledBytes();
      for (String sql : List.of("select * from t order by x, id", "select * from t order by s desc, id",
          "select * from t order by x, id limit 20000")) {
        Dataset<Row> memwall = SparkTestSession.assertSameWithMemwall(spark, sql, SparkTestSession::orderedRows)
            .memwall();
        SparkTestSession.assertTaskResourcesFreed();
        assertTrue(TaskResources.spilledBytes() > spilled, sql + ": the sort spilled");
        spilled = TaskResources.spilledBytes();
        // Spark's UI shows it as for its own sort: the spill, and a peak of memwall memory
        List<MemwallUnaryExec> sorts = Plans.memwallOperators(memwall);
        assertEquals(1, sorts.size(), sorts.toString());
        assertTrue(sorts.getFirst().metrics().apply(OperatorMetrics.SPILL_SIZE).value() > 0, sql);
        assertTrue(sorts.getFirst().metrics().apply(OperatorMetrics.PEAK_MEMORY).value() > 0, sql);
      }
    } finally {
      spark.conf().unset(MemwallSettings.TASK_MEMORY);
    }
    assertEquals(directories, SpillDirectory.liveDirectories(), "every spill directory was removed");
  }

  @Test
  void aSortWhoseInputSizeIsNotKnownIsMemwalls() {
    spark.conf().set("spark.sql.adaptive.enabled", false);
    try {
      List<String> explained = assertSameAsSpark("select * from t order by x, id");
      assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs: MemwallSort")),
          explained.toString());
    } finally {
      spark.conf().unset("spark.sql.adaptive.enabled");
    }
  }

  @Test
  void leavesASortByAnExpressionToSparkAndSaysWhy() {
    List<String> explained = assertSameAsSpark("select id, x from t order by abs(x) desc, id");
    assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall leaves") && line.contains("by columns")),
        explained.toString());
  }
}
