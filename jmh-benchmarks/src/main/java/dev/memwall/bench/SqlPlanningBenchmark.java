package dev.memwall.bench;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Table;
import dev.memwall.sql.Memwall;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.SubstraitPlans;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.run.TpchCatalog;
import dev.memwall.tpch.verify.DuckDbOracle;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Planning a TPC-H query from its SQL text (the template with the validation parameters) into
 * memwall's optimized plan, nothing run: Calcite's parsing, validation and conversion, Substrait,
 * the consumer's conversion and join ordering ({@link Memwall#prepare}). The goal is under
 * 20 ms per query after warm-up.
 *
 * <p>{@code prepare} plans over a catalog that does not change, as a host planning statement after
 * statement does: the catalog's SQL declaration is kept between statements and its statistics are
 * collected by the first. {@code prepareAfterRegistration} registers the tables again in a new
 * catalog before each statement (with the statistics already collected, so no column is scanned), so
 * the declaration is made each time: their difference is what keeping it saves.
 *
 * <p>The data (from the launcher's cache, {@code ~/.cache/memwall/sf<N>}) matters only through the
 * statistics. The catalog declares TPC-H's primary keys, as {@code memwall tpch --plans sql}'s does
 * ({@link TpchCatalog}), so that the rewrites that rely on them are planned too.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx4g")
@State(Scope.Benchmark)
public class SqlPlanningBenchmark {
  @Param({"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20",
      "21", "22"})
  public int query;

  @Param({"0.01"})
  public double scaleFactor;

  private EngineMemory memory;
  private TpchDatabase database;
  private Catalog catalog;
  private String sql;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    memory = EngineMemory.create("sql-planning-benchmark");
    database = TpchBenchData.load(scaleFactor, memory);
    catalog = TpchCatalog.of(database);
    sql = DuckDbOracle.tpchSql(TpchParameters.validation(query, scaleFactor));
    Memwall.prepare(catalog, sql); // collects the statistics the query's plan reads
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    database.close();
    memory.close();
  }

  @Benchmark
  public SubstraitPlans.Prepared prepare() {
    return Memwall.prepare(catalog, sql);
  }

  @Benchmark
  public SubstraitPlans.Prepared prepareAfterRegistration() {
    Catalog registered = new Catalog();
    for (Map.Entry<String, Table> table : database.tables().entrySet()) {
      registered.register(table.getKey(), table.getValue(), catalog.statistics(table.getKey()));
    }
    TpchCatalog.PRIMARY_KEYS.forEach(registered::declareKey);
    return Memwall.prepare(registered, sql);
  }
}
