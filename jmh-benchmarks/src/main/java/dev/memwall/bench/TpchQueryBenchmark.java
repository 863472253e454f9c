package dev.memwall.bench;

import dev.memwall.bench.report.ReportLayout;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.query.TpchQueries;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.verify.DuckDbOracle;
import java.io.IOException;
import java.sql.SQLException;
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
 * TPC-H queries on memwall's plans and on embedded DuckDB, over the same data (memwall's Arrow
 * files, which DuckDB copies into its own storage through the Arrow C Data interface), with the
 * same thread count. Compare the two as a ratio within one run.
 *
 * <p>Data comes from the launcher's cache ({@code ~/.cache/memwall/sf<N>}), generated on first use.
 * The report charts both engines against the thread count, with DuckDB as the baseline.
 */
@ReportLayout(baseline = "duckdb", xAxis = "threads")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx8g")
public class TpchQueryBenchmark {

  /** The data and the query, shared by both engines' states. */
  @State(Scope.Benchmark)
  public abstract static class Workload {
    @Param({"1", "6"})
    public int query;

    @Param({"1", "2"})
    public int threads;

    @Param({"1"})
    public double scaleFactor;

    EngineMemory memory;
    TpchDatabase database;

    void open() throws IOException {
      memory = EngineMemory.create("tpch-benchmark");
      database = TpchBenchData.load(scaleFactor, memory);
    }

    void closeData() {
      database.close();
      memory.close();
    }
  }

  /** memwall's plan for the query. */
  public static class Memwall extends Workload {
    TpchQuery plan;
    ExecutionContext context;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      open();
      plan = TpchQueries.require(query);
      context = TpchBenchData.context(memory, threads);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      closeData();
    }
  }

  /** DuckDB with its own copy of the same data. */
  public static class DuckDb extends Workload {
    DuckDbOracle duckdb;
    String sql;

    @Setup(Level.Trial)
    public void setUp() throws IOException, SQLException {
      open();
      duckdb = DuckDbOracle.of(database, threads, memory);
      sql = DuckDbOracle.tpchSql(TpchParameters.validation(query, scaleFactor));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws SQLException {
      duckdb.close();
      closeData();
    }
  }

  @Benchmark
  public long memwall(Memwall state) {
    try (Table result = state.plan.run(state.database, state.context)) {
      return result.rowCount();
    }
  }

  @Benchmark
  public int duckdb(DuckDb state) throws SQLException {
    return state.duckdb.runSql(state.sql).rows().size();
  }
}
