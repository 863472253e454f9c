package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.Q1;
import dev.memwall.tpch.query.Q6;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.verify.ResultComparator;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * TPC-H Q1 and Q6 at SF 0.01 as Spark SQL over {@code spark.read.format("memwall")}: the same answers
 * memwall computes itself over the same files, through the connector alone and with memwall running the
 * partial aggregations ({@link MemwallExtensions}).
 */
class TpchOnSparkTest {
  static final double SF = 0.01;

  static final String Q1_SQL = """
      select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, sum(l_extendedprice) as sum_base_price,
             sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
             sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
             avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price, avg(l_discount) as avg_disc,
             count(*) as count_order
      from lineitem
      where l_shipdate <= date '1998-12-01' - interval '90' day
      group by l_returnflag, l_linestatus
      order by l_returnflag, l_linestatus""";

  static final String Q6_SQL = """
      select sum(l_extendedprice * l_discount) as revenue
      from lineitem
      where l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year
        and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24""";

  @TempDir static Path cache;
  static SparkSession spark;
  static Path dir;

  @BeforeAll
  static void setUp() throws Exception {
    dir = TpchDataGenerator.dataDirectory(cache, SF);
    try (EngineMemory memory = EngineMemory.create("TpchOnSparkTest data")) {
      new TpchDataGenerator(2, true).generate(dir, SF, memory);
    }
    spark = SparkTestSession.start("TpchOnSparkTest", "spark.sql.extensions", MemwallExtensions.class.getName());
    spark.read().format("memwall").option("table", "lineitem").load(dir.toString()).createOrReplaceTempView("lineitem");
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  @ParameterizedTest(name = "accelerated: {0}")
  @ValueSource(booleans = {false, true})
  void q1MatchesMemwall(boolean accelerated) throws Exception {
    spark.conf().set(MemwallSettings.ACCELERATION, accelerated);
    assertEquals(90, TpchParameters.validation(1, SF).integer("DELTA"));
    Dataset<Row> q1 = spark.sql(Q1_SQL);
    assertTrue(Plans.scanOf(q1).notPushed().isEmpty(), Plans.scanOf(q1).description());
    List<List<Object>> expected = memwall(new Q1());
    assertEquals(4, expected.size());
    assertSame(expected, SparkTestSession.rows(q1));
    assertAccelerated(accelerated, q1);
  }

  @ParameterizedTest(name = "accelerated: {0}")
  @ValueSource(booleans = {false, true})
  void q6MatchesMemwall(boolean accelerated) throws Exception {
    spark.conf().set(MemwallSettings.ACCELERATION, accelerated);
    var parameters = TpchParameters.validation(6, SF);
    assertEquals("1994-01-01", parameters.date("DATE").toString());
    assertEquals(new BigDecimal("0.06"), parameters.decimal("DISCOUNT"));
    assertEquals(24, parameters.integer("QUANTITY"));
    Dataset<Row> q6 = spark.sql(Q6_SQL);
    MemwallScan scan = Plans.scanOf(q6);
    assertTrue(scan.notPushed().isEmpty(), scan.description());
    assertEquals(5, scan.pushed().size(), "the five bounds: " + scan.pushed());
    assertSame(memwall(new Q6()), SparkTestSession.rows(q6));
    assertAccelerated(accelerated, q6);
  }

  private static void assertAccelerated(boolean accelerated, Dataset<Row> query) {
    List<String> memwall = MemwallExtensions.explain(query);
    for (String exec : List.of("MemwallPartialAggregate", "MemwallFinalAggregate")) {
      assertEquals(accelerated ? 1 : 0, memwall.stream().filter(line -> line.startsWith("memwall runs: " + exec)).count(),
          String.join("\n", memwall) + "\n" + query.queryExecution().executedPlan());
    }
    assertTrue(memwall.stream().noneMatch(line -> line.startsWith("memwall leaves")), String.join("\n", memwall));
  }

  /** The query's answer as memwall computes it over the same data set. */
  private static List<List<Object>> memwall(TpchQuery query) throws Exception {
    try (EngineMemory memory = EngineMemory.create("memwall's own answer");
        TpchDatabase db = TpchDatabase.open(dir, SF, memory);
        Table result = query.run(db, TpchParameters.validation(query.number(), SF),
            ExecutionContext.singleThreaded(memory))) {
      return ResultComparator.rows(result);
    }
  }

  /**
   * Equal strings and counts; sums equal exactly; averages (memwall: a double, Spark: a decimal rounded to 6
   * places) to within Spark's rounding.
   */
  private static void assertSame(List<List<Object>> expected, List<List<Object>> actual) {
    assertEquals(expected.size(), actual.size(), "rows: " + expected + " vs " + actual);
    for (int r = 0; r < expected.size(); r++) {
      List<Object> want = expected.get(r);
      List<Object> got = actual.get(r);
      assertEquals(want.size(), got.size());
      for (int c = 0; c < want.size(); c++) {
        Object w = want.get(c);
        Object g = got.get(c);
        if (w instanceof Number || g instanceof Number) {
          BigDecimal a = new BigDecimal(w.toString());
          BigDecimal b = new BigDecimal(g.toString());
          boolean exact = !(w instanceof Double) && !(g instanceof Double);
          if (exact && a.scale() == b.scale()) {
            assertEquals(0, a.compareTo(b), "row " + r + " column " + c + ": " + w + " vs " + g);
          } else {
            double rounding = Math.pow(10, -Math.min(a.scale(), b.scale())) / 2;
            assertEquals(a.doubleValue(), b.doubleValue(), rounding + Math.abs(a.doubleValue()) * 1e-12,
                "row " + r + " column " + c + ": " + w + " vs " + g);
          }
        } else {
          assertEquals(w, g, "row " + r + " column " + c);
        }
      }
    }
  }
}
