package dev.memwall.bench.spill;

import static dev.memwall.core.expr.Expr.col;

import dev.memwall.bench.report.ReportLayout;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * Spilled against in-memory aggregation on TPC-H Q18's grouping: {@code select l_orderkey,
 * sum(l_quantity) from lineitem group by l_orderkey}, many groups (1.5M orders at SF 1), over a
 * synthetic lineitem of that shape: 1.5M sparse order keys (as dbgen's: 8 of every 32 used), 1 to 7
 * lines each (6M rows), quantities 1 to 50 as DECIMAL(15,2). {@code layout=clustered} keeps each
 * order's lines together in key order, as lineitem is stored; {@code shuffled} deals the rows in
 * random order. {@code memory=in-memory} runs with no working-memory limit; {@code 1/8} with the
 * query's working memory limited to an eighth of what the in-memory run needed (measured in the
 * set-up from its {@link SpillReport}), so it spills partitioned runs of partial groups to a
 * temporary directory and aggregates them partition by partition. Compare the two as a ratio within
 * one run, per layout and thread count.
 *
 * <p>The table is generated once per trial; the spill directory is removed in the tear-down, and the
 * memory is leak-checked there.
 */
@ReportLayout(baseline = "memory=in-memory", xAxis = "-")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx4g")
@State(Scope.Benchmark)
public class SpillingAggregationBenchmark {
  static final int ORDERS = 1_500_000;

  @Param({"in-memory", "1/8"})
  public String memory;

  @Param({"clustered", "shuffled"})
  public String layout;

  @Param({"1", "2"})
  public int threads;

  private EngineMemory engine;
  private Table lineitem;
  private Plan plan;
  private Path spillRoot;
  private ExecutionContext context;
  private final List<SpillReport> reports = new ArrayList<>();

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    engine = EngineMemory.create("spilling-aggregation-benchmark");
    lineitem = lineitem(engine, layout.equals("shuffled"));
    plan = Plan.scan(lineitem).aggregate(List.of(col("l_orderkey").as("l_orderkey")),
        Aggregate.sum(col("l_quantity"), "sum_qty"));
    spillRoot = Files.createTempDirectory("memwall-spill-benchmark");
    ExecutionContext.Builder builder = ExecutionContext.builder(engine).threads(threads).spillDirectory(spillRoot)
        .spillReports(reports::add);
    if (memory.equals("1/8")) {
      try (Table groups = plan.execute(ExecutionContext.builder(engine).threads(threads).spillReports(reports::add)
          .build())) {
        if (groups.rowCount() != ORDERS) {
          throw new IllegalStateException(groups.rowCount() + " groups, not " + ORDERS);
        }
      }
      builder.memoryLimit(reports.getLast().peakWorkingBytes() / 8);
    }
    context = builder.build();
  }

  /** The synthetic lineitem: order keys and quantities. */
  static Table lineitem(EngineMemory memory, boolean shuffled) {
    long state = 17;
    long[] keys = new long[ORDERS * 7];
    long[] quantities = new long[keys.length];
    int n = 0;
    for (int order = 0; order < ORDERS; order++) {
      state = state * 6364136223846793005L + 1442695040888963407L;
      int lines = 1 + (int) ((state >>> 33) % 7);
      long key = (order / 8) * 32L + order % 8 + 1; // dbgen's sparse keys: 8 used of every 32
      for (int l = 0; l < lines; l++) {
        state = state * 6364136223846793005L + 1442695040888963407L;
        keys[n] = key;
        quantities[n++] = (1 + (state >>> 33) % 50) * 100;
      }
    }
    if (shuffled) {
      for (int i = n - 1; i > 0; i--) {
        state = state * 6364136223846793005L + 1442695040888963407L;
        int j = (int) Long.remainderUnsigned(state >>> 1, i + 1);
        long k = keys[i];
        keys[i] = keys[j];
        keys[j] = k;
        long q = quantities[i];
        quantities[i] = quantities[j];
        quantities[j] = q;
      }
    }
    try (TableBuilder builder = new TableBuilder(List.of("l_orderkey", "l_quantity"),
        List.of(ColumnType.INT64, ColumnType.decimal(2)), memory.arrow())) {
      for (int i = 0; i < n; i++) {
        builder.appendLong(keys[i]).appendLong(quantities[i]).endRow();
      }
      return builder.build();
    }
  }

  /** Q18's grouping; returns the group count. */
  @Benchmark
  public long aggregate() {
    try (Table groups = plan.execute(context)) {
      return groups.rowCount();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    if (!reports.isEmpty()) {
      System.out.println("# last run: " + reports.getLast()); // working memory and bytes spilled
    }
    lineitem.close();
    engine.close();
    Files.deleteIfExists(spillRoot);
  }
}
