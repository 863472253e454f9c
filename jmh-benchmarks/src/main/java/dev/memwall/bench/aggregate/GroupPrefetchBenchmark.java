package dev.memwall.bench.aggregate;

import static dev.memwall.core.expr.Expr.col;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.Table;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Grouped aggregation ({@code select k, count(*), sum(v) group by k}, one thread) over {@code rows}
 * rows with {@code groups} distinct int64 keys in random order, with the group table's
 * group-prefetch pass (the default) and without it ({@code -Dmemwall.aggregation.prefetch=false}
 * in that benchmark's fork). TPC-H Q18 groups 6M lineitems into 1.5M orders; Q13 1.5M orders into
 * 100k customers.
 *
 * <p>The table is generated once per trial and freed, with the leak check of its
 * {@link EngineMemory}, in the tear-down. One operation is one aggregation; its result is freed
 * before the next.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class GroupPrefetchBenchmark {
  @Param({"6000000"})
  public int rows;

  @Param({"1000", "100000", "1500000"})
  public int groups;

  private EngineMemory memory;
  private Table table;

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("group-prefetch-benchmark");
    table = RandomKeys.table(memory, rows, groups);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    table.close();
    memory.close();
  }

  private long aggregate() {
    try (Table result = Plan.scan(table)
        .aggregate(List.of(col("k").as("k")), Aggregate.countStar("rows"), Aggregate.sum(col("v"), "total"))
        .execute(new ExecutionContext(memory, 1))) {
      return result.rowCount();
    }
  }

  @Benchmark
  @Fork(value = 1, jvmArgsAppend = "-Xmx3g")
  public long groupPrefetch() {
    return aggregate();
  }

  @Benchmark
  @Fork(value = 1, jvmArgsAppend = {"-Xmx3g", "-Dmemwall.aggregation.prefetch=false"})
  public long plain() {
    return aggregate();
  }
}
