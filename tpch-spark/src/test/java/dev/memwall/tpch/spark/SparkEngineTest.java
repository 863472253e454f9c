package dev.memwall.tpch.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.spark.MemwallExtensions;
import dev.memwall.spark.MemwallSettings;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.query.TpchQueries;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.run.DuckDbEngine;
import dev.memwall.tpch.run.QueryEngine;
import dev.memwall.tpch.run.QueryEngineProvider;
import dev.memwall.tpch.verify.DuckDbOracle;
import dev.memwall.tpch.verify.ExpectedResult;
import dev.memwall.tpch.verify.ResultComparator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 22 TPC-H queries at SF 0.01 as Spark SQL over the memwall data source, Spark alone and with
 * memwall's extension, each result verified against DuckDB's on the same data under the TPC-H comparison
 * rules; the engine is found as {@code ./memwall tpch --engine spark} finds it.
 */
class SparkEngineTest {
  static final double SF = 0.01;

  @TempDir static Path cache;
  static EngineMemory memory;
  static TpchDatabase database;
  static DuckDbOracle oracle;
  static QueryEngine accelerated;
  static QueryEngine alone;

  @BeforeAll
  static void setUp() throws Exception {
    memory = EngineMemory.create("SparkEngineTest");
    database = TpchDatabase.load(cache, SF, new TpchDataGenerator(2, true), memory);
    oracle = DuckDbOracle.of(database, 2, memory);
    QueryEngineProvider spark = QueryEngineProvider.find("spark");
    Path dir = TpchDataGenerator.dataDirectory(cache, SF);
    accelerated = spark.open(dir, 2, true, Map.of());
    alone = spark.open(dir, 2, false, Map.of());
  }

  @AfterAll
  static void tearDown() throws Exception {
    for (AutoCloseable resource : new AutoCloseable[] {accelerated, alone, oracle, database, memory}) {
      if (resource != null) {
        resource.close();
      }
    }
  }

  @Test
  void namesSayWhoRunsTheOperators() {
    assertTrue(accelerated.name().matches("Spark 4\\.\\d+\\.\\d+ \\+ memwall"), accelerated.name());
    assertTrue(alone.name().matches("Spark 4\\.\\d+\\.\\d+"), alone.name());
  }

  @Test
  void all22QueriesMatchDuckDbWithAndWithoutTheExtension() throws Exception {
    assertAll22MatchDuckDb(List.of(alone, accelerated));
  }

  /**
   * Every kind of operator memwall has turned on (final aggregations and sorts besides the default partial
   * aggregations), broadcasts off so that every join sort-merges on memwall's sorts, in tasks of 2 MiB of
   * memwall memory, where the sorts of the larger join sides spill (a sort's working memory is half of it):
   * the 22 answers still match DuckDB's.
   */
  @Test
  void all22QueriesMatchDuckDbWithEveryOperatorInLittleMemory() throws Exception {
    QueryEngine everything = QueryEngineProvider.find("spark").open(TpchDataGenerator.dataDirectory(cache, SF), 2,
        true, Map.of());
    try (everything) {
      SparkSession session = ((SparkEngine) everything).session();
      for (String kind : List.of(MemwallSettings.JOINS, MemwallSettings.FINAL_AGGREGATION, MemwallSettings.SORTS)) {
        session.conf().set(kind, true);
      }
      session.conf().set(MemwallSettings.TASK_MEMORY, "2m");
      session.conf().set("spark.sql.autoBroadcastJoinThreshold", -1);
      assertAll22MatchDuckDb(List.of(everything));
      var q3 = ((SparkEngine) everything).dataset(TpchParameters.validation(3, SF));
      q3.collectAsList();
      List<String> lines = MemwallExtensions.explain(q3);
      assertTrue(lines.stream().filter(line -> line.startsWith("memwall runs: MemwallSort")).count() >= 2,
          String.join("\n", lines));
    }
  }

  private static void assertAll22MatchDuckDb(List<QueryEngine> engines) throws Exception {
    DuckDbEngine duckdb = new DuckDbEngine(oracle);
    List<String> failures = new ArrayList<>();
    for (int number = 1; number <= 22; number++) {
      TpchQuery query = TpchQueries.require(number);
      var parameters = TpchParameters.validation(number, SF);
      ExpectedResult expected;
      try (QueryEngine.Result duck = duckdb.run(query, parameters)) {
        expected = ResultComparator.expectedFrom(number, duck.columns(), duck.values());
      }
      for (QueryEngine engine : engines) {
        try (QueryEngine.Result result = engine.run(query, parameters)) {
          var outcome = ResultComparator.compare(result.values(), expected);
          if (!outcome.matches()) {
            failures.add(engine.name() + ", Q" + number + ": " + outcome.message());
          }
        } catch (RuntimeException e) {
          failures.add(engine.name() + ", Q" + number + ": " + e);
        }
      }
    }
    assertTrue(failures.isEmpty(), String.join("\n", failures));
  }

  @Test
  void theExtensionRunsQ1AndQ6AggregationsAndSparkAloneRunsNone() {
    for (int number : new int[] {1, 6}) {
      var parameters = TpchParameters.validation(number, SF);
      var withMemwall = ((SparkEngine) accelerated).dataset(parameters);
      withMemwall.collectAsList();
      List<String> lines = MemwallExtensions.explain(withMemwall);
      assertEquals(1, lines.stream().filter(line -> line.startsWith("memwall runs: MemwallPartialAggregate")).count(),
          String.join("\n", lines));
      // the final aggregation is memwall's only where a session turns it on (MemwallSettings.FINAL_AGGREGATION)
      assertEquals(0, lines.stream().filter(line -> line.startsWith("memwall runs: MemwallFinalAggregate")).count(),
          String.join("\n", lines));
      var sparkAlone = ((SparkEngine) alone).dataset(parameters);
      sparkAlone.collectAsList();
      assertTrue(MemwallExtensions.explain(sparkAlone).stream().noneMatch(line -> line.startsWith("memwall runs")),
          String.join("\n", MemwallExtensions.explain(sparkAlone)));
    }
  }

  @Test
  void anUnknownSettingOrASecondMasterIsRefused() {
    QueryEngineProvider spark = QueryEngineProvider.find("spark");
    Path dir = TpchDataGenerator.dataDirectory(cache, SF);
    var unknown = assertThrows(IllegalArgumentException.class, () -> spark.open(dir, 2, true, Map.of("mastr", "x")));
    assertTrue(unknown.getMessage().contains("no setting 'mastr'"), unknown.getMessage());
    var master = assertThrows(IllegalArgumentException.class,
        () -> spark.open(dir, 2, true, Map.of("master", "local[1]")));
    assertTrue(master.getMessage().contains("already running on local[2]"), master.getMessage());
  }
}
