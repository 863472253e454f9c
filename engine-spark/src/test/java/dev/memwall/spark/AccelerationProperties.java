package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Random partial aggregations over random files (every type, about one value in seven null, NaN and -0.0
 * among the doubles, empty batches, keys from 9 to 2,001 distinct values and doubles, filters that keep all,
 * some or no rows, on doubles too): with memwall's extension, Spark gives the same rows as without it, over
 * the same files, and memwall runs the aggregation (its partial and final steps); likewise for random orderings,
 * with and without a limit.
 *
 * <p>The properties share one Spark session and its views {@code t}, {@code fact} and {@code dim}, and
 * {@link SparkTestSession#assertSameWithMemwall} switches memwall off and on for the session; so every try
 * holds the class's lock. jqwik shrinks a falsified property on a thread of its own and, once its time
 * bound is reached, reports the smallest sample found while the try under way still runs: without the lock
 * that try would replace the next property's views in the middle of its query (a wrong answer that is no
 * one's) and write files while {@link #stop} deletes them. A try that starts after {@link #stop} is
 * rejected.
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
  static synchronized void stop() throws Exception {
    SparkTestSession.stop(spark);
    spark = null;
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
    Arbitrary<List<String>> keys = Arbitraries.of("ds", "s", "i32", "d", "f64").list().uniqueElements().ofMaxSize(2);
    Arbitrary<List<String>> aggregates = Arbitraries.of("sum(dec)", "sum(dec128)", "avg(dec)", "avg(dec128)",
        "avg(i32)", "sum(i32)", "sum(i64)", "min(i64)", "max(i64)", "min(d)", "max(d)", "min(f64)", "max(f64)",
        "count(*)", "count(f64)", "count(s)", "min(dec)", "max(dec128)", "sum(dec * (1 - dec))",
        "sum(dec * dec128 + 1)")
        .list().uniqueElements().ofMinSize(1).ofMaxSize(5);
    Arbitrary<String> filters = Arbitraries.of("", "i32 > 0", "i32 < -990", "d >= date '1995-01-01'",
        "ds in ('apple', 'fig')", "s is null", "dec between -1000 and 1000", "id < 0", "i64 is not null and i32 <> 7",
        "f64 > 0.0", "f64 = cast('NaN' as double) or f64 <= -0.0", "not (f64 < 100.0)");
    return Combinators.combine(keys, aggregates, filters).as(Query::new);
  }

  @Property(tries = 25)
  void memwallAggregatesAsSparkDoes(@ForAll("queries") Query query, @ForAll long seed,
      @ForAll("batches") List<Integer> batches) throws Exception {
    synchronized (AccelerationProperties.class) {
      Assume.that(spark != null);
      typedView(seed, batches);
      String sql = query.sql("t");
      var answer = SparkTestSession.assertSameWithMemwall(spark, sql, SparkTestSession::sortedRowsZeroAsZero);
      List<String> explained = MemwallExtensions.explain(answer.memwall());
      // adaptive execution plans a query over at most one row without its aggregation (OptimizeOneRowPlan)
      assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs"))
          || explained.stream().noneMatch(line -> line.startsWith("memwall leaves")) && answer.answer().size() <= 1,
          sql + "\n" + explained);
      assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs: MemwallFinalAggregate"))
          || answer.answer().size() <= 1, sql + "\n" + explained);
      SparkTestSession.assertTaskResourcesFreed();
    }
  }

  /**
   * Random joins ({@link JoinQuery}) of two generated tables with skewed keys and nulls: with memwall's
   * extension, Spark gives the same rows as without it, and every aggregation over a memwall scan that
   * memwall leaves to Spark is one Spark gave no functions to compute (the aggregation that only
   * deduplicates a semi join's keys, or one whose functions the query does not use); an aggregated
   * {@code l} joined to {@code r}'s columns is memwall's to aggregate, unless adaptive execution found the
   * join empty before it ran.
   */
  @Property(tries = 20)
  void joinsAnswerAsSparkDoes(@ForAll("joins") JoinQuery query, @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 2500) int factRows, @ForAll @IntRange(max = 300) int dimRows,
      @ForAll @DoubleRange(max = 0.4) double skew) throws Exception {
    synchronized (AccelerationProperties.class) {
      Assume.that(spark != null);
      Dataset<Row> memwall = runJoin(query, seed, factRows, dimRows, skew);
      String sql = query.sql("fact", "dim");
      List<String> explained = MemwallExtensions.explain(memwall);
      // by the operator left, not by a reason that names another (a join's streamed side may be an aggregation)
      assertTrue(explained.stream().filter(line -> leftToSpark(line).endsWith("Aggregate"))
          .allMatch(line -> line.endsWith("no aggregate functions")), sql + "\n" + explained);
      // a join's sorts are memwall's, whatever their size
      assertTrue(explained.stream().noneMatch(line -> leftToSpark(line).equals("Sort")), sql + "\n" + explained);
      String plan = memwall.queryExecution().executedPlan().toString();
      Statistics.label("join").collect(query.join(), query.hint());
      Statistics.label("memwall runs").collect(explained.stream().anyMatch(line -> line.startsWith("memwall runs")));
      // Spark moves a semi or anti join on the grouping key below the aggregation (over the scan); adaptive
      // execution skips what meets an empty side
      if (query.leftAggregated() && query.seesRight() && !plan.contains("EmptyRelation")) {
        assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs")), sql + "\n" + plan);
      }
      SparkTestSession.assertTaskResourcesFreed();
    }
  }

  /**
   * Random broadcast joins of the kinds memwall runs ({@link BroadcastJoinRule}: a memwall scan streamed
   * through a broadcast side, inner, left outer, semi or anti, on the skewed int key with nulls; the
   * broadcast side filtered or aggregated or not): Spark gives the same rows with memwall's extension as
   * without it, and memwall runs the join, unless adaptive execution removed it (a side found empty).
   */
  @Property(tries = 10)
  void broadcastJoinsOverAScanRunInMemwall(@ForAll("memwallJoins") JoinQuery query, @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 2500) int factRows, @ForAll @IntRange(max = 300) int dimRows,
      @ForAll @DoubleRange(max = 0.4) double skew) throws Exception {
    synchronized (AccelerationProperties.class) {
      Assume.that(spark != null);
      Dataset<Row> memwall = runJoin(query, seed, factRows, dimRows, skew);
      List<String> explained = MemwallExtensions.explain(memwall);
      String plan = memwall.queryExecution().executedPlan().toString();
      String finalPlan =
          plan.contains("== Initial Plan ==") ? plan.substring(0, plan.indexOf("== Initial Plan ==")) : plan;
      boolean joined = explained.stream().anyMatch(line -> line.startsWith("memwall runs: MemwallHashJoin"));
      Statistics.label("memwall joins").collect(joined);
      // adaptive execution replaces a join with an empty side by an empty relation or a projection of nulls
      boolean sparkJoins =
          java.util.regex.Pattern.compile("HashJoin|MergeJoin|NestedLoopJoin").matcher(finalPlan).find();
      assertTrue(joined || !sparkJoins, query.sql("fact", "dim") + "\n" + explained + "\n" + plan);
      SparkTestSession.assertTaskResourcesFreed();
    }
  }

  /** The name of the operator an explanation line says memwall leaves to Spark; empty for other lines. */
  private static String leftToSpark(String line) {
    String prefix = "memwall leaves to Spark: ";
    if (!line.startsWith(prefix)) {
      return "";
    }
    java.util.regex.Matcher name = java.util.regex.Pattern.compile("\\w+").matcher(line);
    return name.find(prefix.length()) ? name.group() : "";
  }

  /** Writes the query's tables (once per draw of their parameters) and checks its answer against Spark's. */
  private static Dataset<Row> runJoin(JoinQuery query, long seed, int factRows, int dimRows, double skew)
      throws Exception {
    Path files = Files.createDirectories(dir.resolve("join-" + Long.toHexString(seed) + "-" + factRows + "-" + dimRows
        + "-" + Double.hashCode(skew)));
    if (Files.notExists(files.resolve("dim"))) {
      try (EngineMemory memory = EngineMemory.create("AccelerationProperties join data")) {
        Files.createDirectories(files.resolve("fact"));
        JoinFiles.write(files.resolve("fact").resolve("a.arrow"), factRows, skew, seed, memory);
        JoinFiles.write(files.resolve("fact").resolve("b.arrow"), factRows / 3, skew, ~seed, memory);
        Files.createDirectories(files.resolve("dim"));
        JoinFiles.write(files.resolve("dim").resolve("a.arrow"), dimRows, skew / 4, seed + 1, memory);
      }
    }
    spark.read().format("memwall").load(files.resolve("fact").toString()).createOrReplaceTempView("fact");
    spark.read().format("memwall").load(files.resolve("dim").toString()).createOrReplaceTempView("dim");
    return SparkTestSession.assertSameWithMemwall(spark, query.sql("fact", "dim"),
        SparkTestSession::sortedRowsZeroAsZero).memwall();
  }

  /**
   * Makes the view {@code t} of two typed files ({@link TypedFiles}) drawn from {@code seed}: the first of
   * batches of the given sizes, the second of one batch of the first size. Written once per seed and sizes.
   */
  private static void typedView(long seed, List<Integer> batches) throws Exception {
    Path files = Files.createDirectories(dir.resolve("seed-" + Long.toHexString(seed) + "-" + batches.hashCode()));
    if (Files.notExists(files.resolve("a.arrow"))) {
      try (EngineMemory memory = EngineMemory.create("AccelerationProperties data")) {
        TypedFiles.write(files.resolve("a.arrow"), 0, batches.stream().mapToInt(Integer::intValue).toArray(), seed,
            memory);
        TypedFiles.write(files.resolve("b.arrow"), 100_000, new int[] {batches.getFirst()}, ~seed, memory);
      }
    }
    spark.read().format("memwall").load(files.toString()).createOrReplaceTempView("t");
  }

  /** One generated ordering: its keys (each with its direction and nulls), a limit (0: none) and a filter. */
  record Ordering(List<String> keys, int limit, String filter) {
    String sql(String table) {
      return "select * from " + table + (filter.isEmpty() ? "" : " where " + filter) + " order by "
          + String.join(", ", keys) + ", id" + (limit == 0 ? "" : " limit " + limit);
    }
  }

  @Provide
  Arbitrary<Ordering> orderings() {
    Arbitrary<String> key = Combinators.combine(Arbitraries.of("ds", "s", "i32", "i64", "d", "f64", "dec", "dec128"),
        Arbitraries.of("", " desc"), Arbitraries.of("", " nulls first", " nulls last")).as((c, d, n) -> c + d + n);
    Arbitrary<List<String>> keys = key.list().ofMinSize(1).ofMaxSize(3)
        .filter(list -> list.stream().map(k -> k.split(" ")[0]).distinct().count() == list.size());
    Arbitrary<Integer> limits = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(1, Arbitraries.just(0)),
        net.jqwik.api.Tuple.of(1, Arbitraries.of(1, 10, 100, 5000)));
    Arbitrary<String> filters = Arbitraries.of("", "i32 > 0", "id < 0", "f64 = cast('NaN' as double) or f64 <= -0.0",
        "s is null");
    return Combinators.combine(keys, limits, filters).as(Ordering::new);
  }

  /**
   * Random orderings (of every type, either direction, nulls first or last, NaN and -0.0 among the doubles,
   * with a limit or not) over random files: with memwall's extension, Spark returns the same rows in the same
   * order as without it (every ordering ends with the unique {@code id}, so it is total), and memwall sorts
   * (or takes the first rows) unless at most one row passes the filter.
   */
  @Property(tries = 15)
  void memwallSortsAsSparkDoes(@ForAll("orderings") Ordering ordering, @ForAll long seed,
      @ForAll("batches") List<Integer> batches) throws Exception {
    synchronized (AccelerationProperties.class) {
      Assume.that(spark != null);
      typedView(seed, batches);
      String sql = ordering.sql("t");
      var answered = SparkTestSession.assertSameWithMemwall(spark, sql, SparkTestSession::orderedRows);
      Dataset<Row> memwall = answered.memwall();
      boolean oneRow = answered.answer().size() <= 1; // adaptive execution drops the sort of one row
      List<String> explained = MemwallExtensions.explain(memwall);
      assertTrue(oneRow || explained.stream().anyMatch(line -> line.startsWith("memwall runs: MemwallSort")
          || line.startsWith("memwall runs: MemwallTakeOrdered")), sql + "\n" + explained);
      SparkTestSession.assertTaskResourcesFreed();
    }
  }

  @Provide
  Arbitrary<JoinQuery> joins() {
    return JoinQuery.queries();
  }

  /** Broadcast joins memwall runs: {@code l} a filtered scan, no condition over both sides. */
  @Provide
  Arbitrary<JoinQuery> memwallJoins() {
    return JoinQuery.queries().map(query -> new JoinQuery(query.join().equals("full") ? "inner" : query.join(),
        "broadcast", "k", false, query.rightAggregated(), query.leftFilter(), query.rightFilter(),
        query.above().contains("r.") ? "" : query.above(), query.groupBy(), query.aggregates()));
  }

  @Provide
  Arbitrary<List<Integer>> batches() {
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.just(0)),
        net.jqwik.api.Tuple.of(4, Arbitraries.integers().between(1, 3000))).list().ofMinSize(1).ofMaxSize(3);
  }
}
