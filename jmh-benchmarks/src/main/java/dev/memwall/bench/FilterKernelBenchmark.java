package dev.memwall.bench;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.bench.report.ReportLayout;
import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.FilterKernel;
import dev.memwall.core.memory.ArrowSegments;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Batch;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
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
 * The engine's range filter ({@code x >= lo and x < hi} on an int32 column, the shape of every
 * TPC-H date predicate) as a plan runs it: chunk by chunk of {@link Chunk#CAPACITY} rows, the
 * {@link FilterKernel} the {@link Binder} compiles narrowing each chunk's selection. The baseline
 * reads the same column chunk by chunk and sums it: what any filter must at least pay for reading
 * its input, so the ratio says how far the filter is from the memory's speed.
 *
 * <p>Data: two columns {@code x} and {@code y} of {@code rows} int32 values (default 32M, 128 MiB
 * each: far beyond the caches, as a TPC-H column is), uniform in {@code [0, 1000)} by a fixed hash
 * of the row index; the range on {@code x} passes {@code passPercent} of them, and
 * {@code x < y} about half. With {@code input = HALF} each chunk arrives with every other row
 * selected, as after an earlier filter; with {@code DENSE}, all of them. One operation is one pass
 * over all rows; it returns the rows kept (the sum for the baseline) so JMH consumes it.
 */
@ReportLayout(baseline = "scan")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
public class FilterKernelBenchmark {
  /** Values are drawn from {@code [0, VALUE_RANGE)}. */
  static final int VALUE_RANGE = 1000;

  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

  /** How the chunks arrive at the filter. */
  public enum Input {
    /** Every row selected. */
    DENSE,
    /** Every other row selected, as after an earlier filter. */
    HALF
  }

  /** The value of row {@code row}, uniform in {@code [0, VALUE_RANGE)}. */
  static int value(long row) {
    long z = (row + 0x9E3779B97F4A7C15L) * 0xBF58476D1CE4E5B9L;
    return (int) Long.remainderUnsigned(z ^ (z >>> 31), VALUE_RANGE);
  }

  /** The column, the compiled filter and the chunk it narrows; one per trial. */
  @State(Scope.Thread)
  public static class Data {
    @Param("33554432")
    public int rows;

    @Param({"1", "50", "99"})
    public int passPercent;

    @Param({"DENSE", "HALF"})
    public Input input;

    EngineMemory memory;
    VectorSchemaRoot root;
    Batch batch;
    MemorySegment values;
    FilterKernel filter;
    FilterKernel comparison;
    final Chunk chunk = new Chunk();
    final int[] everyOther = new int[Chunk.CAPACITY / 2];

    @Setup(Level.Trial)
    public void setUp() {
      memory = EngineMemory.create("filter-kernel");
      IntVector x = column("x", 0);
      IntVector y = column("y", rows);
      root = new VectorSchemaRoot(List.of(x, y));
      root.setRowCount(rows);
      batch = new Batch(root, null);
      values = ArrowSegments.of(x.getDataBuffer());
      int high = VALUE_RANGE * passPercent / 100;
      filter = new Binder(root.getSchema()).bindFilter(and(col("x").ge(lit(0)), col("x").lt(lit(high))));
      comparison = new Binder(root.getSchema()).bindFilter(col("x").lt(col("y")));
      for (int i = 0; i < everyOther.length; i++) {
        everyOther[i] = 2 * i;
      }
    }

    /** A column of {@code rows} values, row i holding {@code value(i + shift)}, none null. */
    private IntVector column(String name, int shift) {
      IntVector vector = new IntVector(name, memory.arrow());
      vector.allocateNew(rows);
      MemorySegment data = ArrowSegments.of(vector.getDataBuffer());
      for (int i = 0; i < rows; i++) {
        data.setAtIndex(INT, i, value((long) i + shift));
      }
      ArrowSegments.of(vector.getValidityBuffer()).fill((byte) 0xFF);
      vector.setValueCount(rows);
      return vector;
    }

    /** Points the chunk at rows {@code [start, start + count)}, selected as {@link #input} says. */
    void reset(int start, int count) {
      chunk.reset(batch, start, count);
      if (input == Input.HALF) {
        chunk.select(everyOther, (count + 1) / 2);
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      root.close();
      memory.close(); // throws MemoryLeakException if anything above leaked
    }
  }

  /** Reads and sums the column chunk by chunk: the least a filter over it costs. */
  @Benchmark
  public long scan(Data data) {
    MemorySegment values = data.values;
    long sum = 0;
    for (int start = 0; start < data.rows; start += Chunk.CAPACITY) {
      int end = Math.min(data.rows, start + Chunk.CAPACITY);
      for (int i = start; i < end; i++) {
        sum += values.getAtIndex(INT, i);
      }
    }
    return sum;
  }

  /** The compiled range filter over every chunk; returns the rows it kept. */
  @Benchmark
  public long rangeFilter(Data data) {
    return filterAll(data, data.filter);
  }

  /**
   * {@code x < y} between two int32 columns (Q4, Q12 and Q21's {@code l_commitdate < l_receiptdate}),
   * about half the rows whatever {@code passPercent} says; returns the rows kept.
   */
  @Benchmark
  public long columnComparison(Data data) {
    return filterAll(data, data.comparison);
  }

  private static long filterAll(Data data, FilterKernel filter) {
    Chunk chunk = data.chunk;
    long kept = 0;
    for (int start = 0; start < data.rows; start += Chunk.CAPACITY) {
      data.reset(start, Math.min(Chunk.CAPACITY, data.rows - start));
      filter.filter(chunk);
      kept += chunk.selected();
    }
    return kept;
  }
}
