package dev.memwall.bench.aggregate;

import static dev.memwall.core.expr.Expr.col;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SpillingAggregation;
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
 * Grouped aggregation ({@code select k, count(*), sum(v), min(v) group by k}) of {@code rows} rows
 * into {@code groups} int64 keys in random order, on 1 and 2 threads, partitioned when a worker's
 * table outgrows the fast cache (the default: each partition aggregated by one thread, all at once)
 * or with the workers' tables merged ({@code partitioned=false}, which sets
 * {@link SpillingAggregation#PARTITION_GROUPS_PROPERTY} beyond any table for the trial). 4 groups
 * never leave the merge; 64K groups are Q21's aggregations by order (72K groups of 5 rows) in size;
 * 1.5M groups are Q18's orders of lineitem in random order.
 *
 * <p>The table is generated once per trial and freed, with the leak check of its
 * {@link EngineMemory}, in the tear-down. One operation is one aggregation; its result is freed
 * before the next.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = "-Xmx3g")
public class PartitionedAggregationBenchmark {
  @Param({"6000000"})
  public int rows;

  @Param({"4", "65536", "1500000"})
  public int groups;

  @Param({"1", "2"})
  public int threads;

  @Param({"true", "false"})
  public boolean partitioned;

  private EngineMemory memory;
  private Table table;
  private String previousSetting;

  @Setup(Level.Trial)
  public void setUp() {
    previousSetting = System.getProperty(SpillingAggregation.PARTITION_GROUPS_PROPERTY);
    if (partitioned) {
      System.clearProperty(SpillingAggregation.PARTITION_GROUPS_PROPERTY);
    } else {
      System.setProperty(SpillingAggregation.PARTITION_GROUPS_PROPERTY, Long.toString(Long.MAX_VALUE));
    }
    memory = EngineMemory.create("partitioned-aggregation-benchmark");
    table = RandomKeys.table(memory, rows, groups);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (previousSetting == null) {
      System.clearProperty(SpillingAggregation.PARTITION_GROUPS_PROPERTY);
    } else {
      System.setProperty(SpillingAggregation.PARTITION_GROUPS_PROPERTY, previousSetting);
    }
    table.close();
    memory.close();
  }

  @Benchmark
  public long aggregate() {
    try (Table result = Plan.scan(table)
        .aggregate(List.of(col("k").as("k")), Aggregate.countStar("rows"), Aggregate.sum(col("v"), "total"),
            Aggregate.min(col("v"), "least"))
        .execute(new ExecutionContext(memory, threads))) {
      return result.rowCount();
    }
  }
}
