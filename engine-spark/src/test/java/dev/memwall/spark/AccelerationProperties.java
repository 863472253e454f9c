package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Random partial aggregations over random files (every type, about one value in seven null, NaN and -0.0
 * among the doubles, empty batches, keys from 9 to 2,001 distinct values, filters that keep all, some or no
 * rows): with memwall's extension, Spark gives the same rows as without it, over the same files, and
 * memwall runs the aggregation.
 */
class AccelerationProperties {
  static SparkSession spark;
  static Path dir;

  @BeforeContainer
  static void start() throws Exception {
    spark = SparkTestSession.start("AccelerationProperties", "spark.sql.extensions", MemwallExtensions.class.getName());
    dir = Files.createTempDirectory("memwall-acceleration-properties");
  }

  @AfterContainer
  static void stop() throws Exception {
    SparkTestSession.stop(spark);
    try (var files = Files.walk(dir)) {
      for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }

  /** One generated query: its grouping keys, aggregates and filter (empty: none). */
  record Query(List<String> keys, List<String> aggregates, String filter) {
    String sql(String table) {
      List<String> select = new ArrayList<>(keys);
      select.addAll(aggregates);
      return "select " + String.join(", ", select) + " from " + table + (filter.isEmpty() ? "" : " where " + filter)
          + (keys.isEmpty() ? "" : " group by " + String.join(", ", keys));
    }
  }

  @Provide
  Arbitrary<Query> queries() {
    Arbitrary<List<String>> keys = Arbitraries.of("ds", "s", "i32", "d").list().uniqueElements().ofMaxSize(2);
    Arbitrary<List<String>> aggregates = Arbitraries.of("sum(dec)", "sum(dec128)", "avg(dec)", "avg(dec128)",
        "avg(i32)", "sum(i32)", "sum(i64)", "min(i64)", "max(i64)", "min(d)", "max(d)", "min(f64)", "count(*)",
        "count(f64)", "count(s)", "min(dec)", "max(dec128)", "sum(dec * (1 - dec))", "sum(dec * dec128 + 1)")
        .list().uniqueElements().ofMinSize(1).ofMaxSize(5);
    Arbitrary<String> filters = Arbitraries.of("", "i32 > 0", "i32 < -990", "d >= date '1995-01-01'",
        "ds in ('apple', 'fig')", "s is null", "dec between -1000 and 1000", "id < 0", "i64 is not null and i32 <> 7");
    return Combinators.combine(keys, aggregates, filters).as(Query::new);
  }

  @Property(tries = 25)
  void memwallAggregatesAsSparkDoes(@ForAll("queries") Query query, @ForAll long seed,
      @ForAll("batches") List<Integer> batches) throws Exception {
    Path files = Files.createDirectories(dir.resolve("seed-" + Long.toHexString(seed) + "-" + batches.hashCode()));
    if (Files.notExists(files.resolve("a.arrow"))) {
      try (EngineMemory memory = EngineMemory.create("AccelerationProperties data")) {
        TypedFiles.write(files.resolve("a.arrow"), 0, batches.stream().mapToInt(Integer::intValue).toArray(), seed,
            memory);
        TypedFiles.write(files.resolve("b.arrow"), 100_000, new int[] {batches.getFirst()}, ~seed, memory);
      }
    }
    spark.read().format("memwall").load(files.toString()).createOrReplaceTempView("t");
    String sql = query.sql("t");
    spark.conf().set(MemwallSettings.ACCELERATION, false);
    List<String> expected;
    try {
      expected = SparkTestSession.sortedRows(spark.sql(sql));
    } finally {
      spark.conf().set(MemwallSettings.ACCELERATION, true);
    }
    Dataset<Row> memwall = spark.sql(sql);
    assertEquals(expected, SparkTestSession.sortedRows(memwall), sql);
    List<String> explained = MemwallExtensions.explain(memwall);
    assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs"))
        || explained.stream().noneMatch(line -> line.startsWith("memwall leaves")) && expected.isEmpty(),
        sql + "\n" + explained);
    SparkTestSession.assertTaskResourcesFreed();
  }

  @Provide
  Arbitrary<List<Integer>> batches() {
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.just(0)),
        net.jqwik.api.Tuple.of(4, Arbitraries.integers().between(1, 3000))).list().ofMinSize(1).ofMaxSize(3);
  }
}
