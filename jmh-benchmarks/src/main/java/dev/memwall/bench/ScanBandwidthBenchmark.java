package dev.memwall.bench;

import dev.memwall.bench.report.ReportLayout;
import dev.memwall.core.memory.ArrowSegments;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.DateColumn;
import dev.memwall.core.vector.Int64Column;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
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
 * How fast one core streams a large int64 column, by access path: a {@link MemorySegment} over an
 * FFM-allocated Arrow buffer ({@link Int64Column#data()}), a plain on-heap {@code long[]}, and
 * Arrow's own {@link BigIntVector#get(int)}.
 *
 * <p>Two kernels per path: a plain sum of the int64 column (8 bytes a row), and a Q6-like filtered
 * sum (12 bytes a row): sum the values whose int32 date lies in {@code [DATE_LO, DATE_HI)} and
 * whose value is below {@code VALUE_LIMIT}. The filter is <em>branch-free</em> in the source in all
 * three paths: both conditions become all-ones/all-zero masks by sign-bit arithmetic and the value
 * is ANDed with them, so the time does not depend on branch prediction and C2 may vectorize.
 *
 * <p>Data: {@code rows} values (default 128M: a 1 GiB int64 column plus a 512 MiB date column),
 * generated deterministically from the row index so every path sums the same data. Off-heap data
 * is allocated through an {@link EngineMemory} (closed, with its leak check, in the tear-down); the
 * heap arrays need a large heap, hence {@code -Xmx3g} on the forks, which otherwise inherit the
 * launching JVM's arguments (the memwall JVM flags).
 *
 * <p>One operation is one full scan; results are returned so JMH consumes them. The report compares
 * each kernel's paths with the same kernel over a heap array.
 *
 * <p>Specialization: each kernel is written once per path (segment, heap array, Arrow getter), the
 * copies alike but for how they read a value, on purpose: that read is what is measured, and a
 * shared loop would measure the abstraction over it instead.
 */
@ReportLayout(baseline = "*HeapArray")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx3g")
public class ScanBandwidthBenchmark {
  /** First day (inclusive) of the date predicate: 1994-01-01 as days since the epoch. */
  static final int DATE_LO = 8766;
  /** Last day (exclusive) of the date predicate: 1995-01-01. */
  static final int DATE_HI = 9131;
  /** Values are drawn from {@code [0, VALUE_RANGE)}. */
  static final long VALUE_RANGE = 100_000;
  /** The value predicate: {@code value < VALUE_LIMIT} (24% of rows). */
  static final long VALUE_LIMIT = 24_000;
  /** Dates are drawn from {@code [DATE_BASE, DATE_BASE + DATE_SPAN)}: 1992-01-01 to 1998-12-31. */
  static final int DATE_BASE = 8035;
  static final int DATE_SPAN = 2557;

  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

  /** The generated int64 value of row {@code row}. */
  static long value(long row) {
    return Long.remainderUnsigned(mix(row), VALUE_RANGE);
  }

  /** The generated date (days since 1970-01-01) of row {@code row}. */
  static int date(long row) {
    return DATE_BASE + (int) Long.remainderUnsigned(mix(row ^ 0x5DEECE66DL), DATE_SPAN);
  }

  private static long mix(long z) {
    z = (z + 0x9E3779B97F4A7C15L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** All ones when {@code date} is in {@code [DATE_LO, DATE_HI)} and {@code value < VALUE_LIMIT}. */
  static long mask(int date, long value) {
    long fromLo = (long) date - DATE_LO;
    long inRange = (fromLo - (DATE_HI - DATE_LO)) & ~fromLo;
    return (inRange & (value - VALUE_LIMIT)) >> 63;
  }

  /** The data as FFM-allocated Arrow vectors and their memwall column views. */
  @State(Scope.Benchmark)
  public static class OffHeap {
    @Param("134217728")
    public int rows;

    EngineMemory memory;
    BigIntVector values;
    DateDayVector dates;
    MemorySegment valueData;
    MemorySegment dateData;

    @Setup(Level.Trial)
    public void setUp() {
      memory = EngineMemory.create("scan-bandwidth");
      values = new BigIntVector("value", memory.arrow());
      dates = new DateDayVector("date", memory.arrow());
      values.allocateNew(rows);
      dates.allocateNew(rows);
      MemorySegment v = ArrowSegments.of(values.getDataBuffer());
      MemorySegment d = ArrowSegments.of(dates.getDataBuffer());
      for (int i = 0; i < rows; i++) {
        v.setAtIndex(LONG, i, value(i));
        d.setAtIndex(INT, i, date(i));
      }
      // All rows valid: Arrow's get(i) checks the validity bit of every row it reads.
      ArrowSegments.of(values.getValidityBuffer()).fill((byte) 0xFF);
      ArrowSegments.of(dates.getValidityBuffer()).fill((byte) 0xFF);
      values.setValueCount(rows);
      dates.setValueCount(rows);
      valueData = ((Int64Column) Column.of(values, null)).data();
      dateData = ((DateColumn) Column.of(dates, null)).data();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      values.close();
      dates.close();
      memory.close(); // throws MemoryLeakException if anything above leaked
    }
  }

  /** The same data in plain heap arrays. */
  @State(Scope.Benchmark)
  public static class Heap {
    @Param("134217728")
    public int rows;

    long[] values;
    int[] dates;

    @Setup(Level.Trial)
    public void setUp() {
      values = new long[rows];
      dates = new int[rows];
      for (int i = 0; i < rows; i++) {
        values[i] = value(i);
        dates[i] = date(i);
      }
    }
  }

  @Benchmark
  public long sumSegment(OffHeap data) {
    MemorySegment values = data.valueData;
    int rows = data.rows;
    long sum = 0;
    for (int i = 0; i < rows; i++) {
      sum += values.getAtIndex(LONG, i);
    }
    return sum;
  }

  @Benchmark
  public long sumHeapArray(Heap data) {
    long[] values = data.values;
    long sum = 0;
    for (int i = 0; i < values.length; i++) {
      sum += values[i];
    }
    return sum;
  }

  @Benchmark
  public long sumArrowGet(OffHeap data) {
    BigIntVector values = data.values;
    int rows = data.rows;
    long sum = 0;
    for (int i = 0; i < rows; i++) {
      sum += values.get(i);
    }
    return sum;
  }

  @Benchmark
  public long filteredSumSegment(OffHeap data) {
    MemorySegment values = data.valueData;
    MemorySegment dates = data.dateData;
    int rows = data.rows;
    long sum = 0;
    for (int i = 0; i < rows; i++) {
      long value = values.getAtIndex(LONG, i);
      sum += value & mask(dates.getAtIndex(INT, i), value);
    }
    return sum;
  }

  @Benchmark
  public long filteredSumHeapArray(Heap data) {
    long[] values = data.values;
    int[] dates = data.dates;
    long sum = 0;
    for (int i = 0; i < values.length; i++) {
      long value = values[i];
      sum += value & mask(dates[i], value);
    }
    return sum;
  }

  @Benchmark
  public long filteredSumArrowGet(OffHeap data) {
    BigIntVector values = data.values;
    DateDayVector dates = data.dates;
    int rows = data.rows;
    long sum = 0;
    for (int i = 0; i < rows; i++) {
      long value = values.get(i);
      sum += value & mask(dates.get(i), value);
    }
    return sum;
  }
}
