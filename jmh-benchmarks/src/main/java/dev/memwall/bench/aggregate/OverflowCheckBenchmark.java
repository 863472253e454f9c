package dev.memwall.bench.aggregate;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
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
 * What the exact integer kernels gain when a chunk's magnitudes prove that no overflow can happen
 * ({@code Magnitude}): the same plans over the same keys and signs, with {@code magnitude=SMALL}
 * values (below 2<sup>30</sup>, so sums and the product take the unchecked loops) and
 * {@code magnitude=LARGE} values (in [2<sup>52</sup>, 2<sup>53</sup>), one bit too many for the
 * unchecked sum of a chunk, and with the multiplier's ten bits one too many for an unchecked product),
 * which take the checked loops. The ratio LARGE/SMALL within one run is the price of the checks.
 *
 * <ul>
 *   <li>{@link #groupedSums}: {@code select k, count(*), sum(v), sum(w) group by k} over
 *       {@code groups} keys. Up to 4 groups {@code LaneSums} uses its masked loop, up to 256 its
 *       counting-sort loop, beyond that every row is added to its group's slot, checked, whatever
 *       the magnitude (so 4096 groups is the control: LARGE and SMALL should take the same time).
 *   <li>{@link #productFilter}: {@code select k, count(*) where v * w > 0 group by k}: the product
 *       kernel ({@code LongKernels.Arithmetic}) checked per value or not; the count's sums take the
 *       same loop whatever the magnitude.
 * </ul>
 *
 * <p>Rows come in pairs of one key with opposite signs of {@code v}, so the sums of LARGE values stay
 * far from overflow although every single value is near 2<sup>53</sup>. The table is generated once
 * per trial; its memory is freed, with the leak check of its {@link EngineMemory}, in the tear-down.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx3g")
@State(Scope.Benchmark)
public class OverflowCheckBenchmark {
  /** The magnitudes of {@code v}: what decides between the checked and the unchecked loops. */
  public enum Magnitude {
    SMALL(0, 1L << 30),
    LARGE(1L << 52, 1L << 52);

    final long base;
    final long range;

    Magnitude(long base, long range) {
      this.base = base;
      this.range = range;
    }
  }

  @Param({"6000000"})
  public int rows;

  @Param({"4", "64", "4096"})
  public int groups;

  @Param({"SMALL", "LARGE"})
  public Magnitude magnitude;

  private EngineMemory memory;
  private Table table;

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("overflow-check-benchmark");
    try (TableBuilder builder = new TableBuilder(List.of("k", "v", "w"),
        List.of(ColumnType.INT64, ColumnType.INT64, ColumnType.INT64), memory.arrow())) {
      long state = 42;
      long key = 0;
      long value = 0;
      long multiplier = 0;
      for (int r = 0; r < rows; r++) {
        if ((r & 1) == 0) { // a new pair: the odd row repeats its key and multiplier with the value negated
          state = state * 6364136223846793005L + 1442695040888963407L;
          key = Long.remainderUnsigned(state >>> 11, groups);
          value = magnitude.base + Long.remainderUnsigned(state >>> 7, magnitude.range);
          multiplier = (state >>> 54) | 512; // ten bits
        } else {
          value = -value;
        }
        builder.appendLong(key).appendLong(value).appendLong(multiplier).endRow();
      }
      table = builder.build();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    table.close();
    memory.close();
  }

  /** Grouped sums of {@code v} and {@code w} and a count; returns the group count. */
  @Benchmark
  public long groupedSums() {
    try (Table result = Plan.scan(table)
        .aggregate(List.of(col("k").as("k")), Aggregate.countStar("rows"),
            Aggregate.sum(col("v"), "sum_v"), Aggregate.sum(col("w"), "sum_w"))
        .execute(new ExecutionContext(memory, 1))) {
      return result.rowCount();
    }
  }

  /** Counts per group the rows whose product {@code v * w} is positive (half of them); returns the group count. */
  @Benchmark
  public long productFilter() {
    try (Table result = Plan.scan(table)
        .filter(col("v").mul(col("w")).gt(lit(0)))
        .aggregate(List.of(col("k").as("k")), Aggregate.countStar("rows"))
        .execute(new ExecutionContext(memory, 1))) {
      return result.rowCount();
    }
  }
}
