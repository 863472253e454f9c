package dev.memwall.bench;

import static dev.memwall.core.expr.Expr.col;

import dev.memwall.bench.report.ReportLayout;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.AggregateLayout;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.Q1;
import java.io.IOException;
import java.util.List;
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
 * Seed 001's DSM versus NSM study (Zukowski et al., Table 2 and Fig. 5) on TPC-H Q1 at SF 1: the
 * same columnar scan and expression kernels, with the aggregate table in columns
 * ({@link AggregateLayout#COLUMNS}) or rows ({@link AggregateLayout#ROWS}), over Q1's 4 groups and
 * over many-group variants that add a key: {@code l_suppkey} (~40K groups, near the paper's 32K),
 * {@code l_partkey} (~800K) and {@code l_orderkey} (~3M). One thread; compare the layouts as a
 * ratio within a run.
 */
@ReportLayout(baseline = "layout=COLUMNS", xAxis = "-")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx6g")
@State(Scope.Benchmark)
public class AggregateLayoutBenchmark {
  /** The added grouping key, or {@code none} for Q1 itself. */
  @Param({"none", "l_suppkey", "l_partkey", "l_orderkey"})
  public String extraKey;

  @Param({"COLUMNS", "ROWS"})
  public AggregateLayout layout;

  private EngineMemory memory;
  private TpchDatabase database;
  private Plan plan;
  private ExecutionContext context;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    memory = EngineMemory.create("aggregate-layout");
    database = TpchBenchData.load(1, memory);
    List<NamedExpr> extra = extraKey.equals("none") ? List.of() : List.of(col(extraKey).as(extraKey));
    plan = Q1.plan(database, 90, extra);
    context = new ExecutionContext(memory, 1, layout);
  }

  /** Q1 (or its variant) up to the aggregation; returns the group count. */
  @Benchmark
  public long q1() {
    try (Table groups = plan.execute(context)) {
      return groups.rowCount();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    database.close();
    memory.close();
  }
}
