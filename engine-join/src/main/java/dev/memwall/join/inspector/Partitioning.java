package dev.memwall.join.inspector;

import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.HashedTuples;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * How one run cuts both sides into memory partitions (seed 002, section 5.4.4): a tuple's partition
 * is given by the top bits of its 4-byte hash code (the 64-bit key's high half), scaled to the
 * {@link InspectorSizing#partitions()} partition count. Each of {@code t} threads partitions a
 * contiguous share of a side (count, then move), so partition {@code p} is the union of the
 * threads' regions {@code p t} to {@code p t + t - 1}, laid out one after the other. It exists so
 * that the build and the probe side are cut, laid out and written alike.
 *
 * <p>Records: {@code W}-byte tuples ({@link InspectorSizing#recordBytes()}) with the key at offset
 * 0, the row id at {@link CacheTable#ROW_OFFSET}, the key's low half at 12 and the key repeated
 * after that, the payload standing in for the columns an early-materializing join would carry.
 *
 * <p>Ownership: {@link #layOut} allocates through the {@link RunContext}, which frees. Thread
 * safety: immutable; {@link #histograms} runs a parallel section and is for the run's thread, the
 * rest may be called from any of the run's threads. Inputs are the run's own; nothing is checked.
 */
final class Partitioning {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  private final RunContext run;
  private final InspectorSizing sizing;
  private final int partitions;
  private final int threads;
  private final int recordBytes;

  Partitioning(RunContext run, InspectorSizing sizing) {
    this.run = run;
    this.sizing = sizing;
    this.partitions = sizing.partitions();
    this.threads = run.threads();
    this.recordBytes = sizing.recordBytes();
  }

  RunContext run() {
    return run;
  }

  InspectorSizing sizing() {
    return sizing;
  }

  int partitions() {
    return partitions;
  }

  int threads() {
    return threads;
  }

  /** W: the bytes of one record. */
  int recordBytes() {
    return recordBytes;
  }

  /** The partition of the tuple with hash code {@code code}. */
  int partitionOf(int code) {
    return (int) ((Integer.toUnsignedLong(code) * partitions) >>> 32);
  }

  /** The 4-byte hash code of {@code key}: its high half. */
  static int code(long key) {
    return (int) (key >>> 32);
  }

  /** The first of thread {@code t}'s share of {@code count} tuples; thread t's share ends at t + 1's. */
  int shareStart(int count, int t) {
    return (int) ((long) count * t / threads);
  }

  /**
   * Counts {@code tuples}' partitions per thread, then lays out that side's partitions: per
   * (partition, thread) region starts, partition-major, and room for its records and hash codes.
   */
  PartitionedSide layOut(HashedTuples tuples, int count) {
    int[] start = regions(histograms(tuples, count));
    MemorySegment records = run.allocate((long) count * recordBytes, Placement.HUGE_PAGES);
    MemorySegment codes = run.allocate((long) count * Integer.BYTES, Placement.DEFAULT);
    return new PartitionedSide(records, codes, start);
  }

  /** Per (partition, thread) region starts, partition-major, from per-thread histograms. */
  private int[] regions(int[][] histogram) {
    int[] start = new int[partitions * threads + 1];
    int at = 0;
    for (int p = 0; p < partitions; p++) {
      for (int t = 0; t < threads; t++) {
        start[p * threads + t] = at;
        at += histogram[t][p];
      }
    }
    start[partitions * threads] = at;
    return start;
  }

  private int[][] histograms(HashedTuples tuples, int count) {
    int[][] histogram = new int[threads][];
    MemorySegment hashes = tuples.hashes();
    run.parallel(t -> {
      // counted in an array of the thread's own, published once: the rows of histogram are small
      // neighbouring arrays, and counting in them directly would have the threads write to the
      // same cache lines
      int[] h = new int[partitions];
      for (int i = shareStart(count, t), end = shareStart(count, t + 1); i < end; i++) {
        h[partitionOf(code(hashes.getAtIndex(HashedTuples.HASH, i)))]++;
      }
      histogram[t] = h;
    });
    return histogram;
  }

  /** Writes one record: key, row id, then the payload standing in for the other columns. */
  void writeRecord(MemorySegment records, long position, long key, int row) {
    long at = position * recordBytes;
    records.set(LONG, at, key);
    records.set(INT, at + CacheTable.ROW_OFFSET, row);
    records.set(INT, at + 12, (int) key);
    for (long o = 16; o < recordBytes; o += 8) {
      records.set(LONG, at + o, key);
    }
  }
}
