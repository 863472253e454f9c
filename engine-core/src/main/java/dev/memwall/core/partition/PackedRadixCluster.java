package dev.memwall.core.partition;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.concurrent.Workers;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Radix-cluster (seed 000, section 3.3) of {@link PackedTuples}: orders the tuples on the top
 * {@code B} bits of their key's {@linkplain PackedTuples#hash hash} in {@code P} passes of
 * histogram-then-scatter, each pass splitting every cluster of the one before on its next bits.
 * The same scheme as {@link RadixCluster}, on one 8-byte stream instead of two; it scatters
 * directly (software write-combining did not pay on the hosts measured, see docs/benchmarks/joins.md).
 *
 * <p>The first pass reads a {@link PackedSource} twice, to count and to move, so an input is never
 * copied whole first. With several threads it is Cieslewicz and Ross's count-then-move: each thread
 * counts a contiguous share of the blocks, the counts give every thread its own cursors into every
 * partition, and each moves its share with them; the later passes hand the first pass's clusters to the
 * threads. The output does not depend on the thread count (each partition keeps input order).
 *
 * <p>Memory: the caller's output buffer, an equally large scratch buffer for plans of two or more
 * passes (they ping-pong) and the offsets; per thread, an 8 KiB block and heap histograms of
 * {@code 4 x 2^{B_p}} bytes per pass. Thread safety: the call starts and joins its own threads;
 * concurrent calls must not share buffers.
 */
public final class PackedRadixCluster {
  private static final ValueLayout.OfLong WORD = PackedTuples.WORD;
  private static final ValueLayout.OfInt OFFSET = ValueLayout.JAVA_INT;

  private PackedRadixCluster() {}

  /**
   * Clusters the tuples of {@code source} by {@code plan} on {@code threads} threads. The first pass
   * reads the source block by block (each thread a contiguous share of the blocks) and writes
   * {@code out}; later passes ping-pong between {@code scratch} and {@code out}.
   *
   * @param out room for every tuple of the source
   * @param scratch as large, used only by plans of two or more passes (may be null otherwise)
   * @param offsets receives {@code 2^B + 1} ints: cluster {@code c} occupies
   *     {@code [offsets[c], offsets[c + 1])} of the returned buffer; the last is the tuple count
   * @return the buffer holding the clustered tuples: {@code out} or {@code scratch}
   * @throws IllegalArgumentException if a buffer is too small (nothing is moved then) or
   *     {@code threads < 1}
   */
  public static MemorySegment cluster(PackedSource source, MemorySegment out, MemorySegment scratch, RadixPlan plan,
      int threads, MemorySegment offsets) {
    boolean multiPass = plan.passes() > 1;
    if (threads < 1 || offsets.byteSize() < RadixCluster.offsetsBytes(plan) || (multiPass && scratch == null)) {
      throw new IllegalArgumentException("cannot cluster by " + plan + " on " + threads + " threads with "
          + offsets.byteSize() + " bytes of offsets" + (multiPass && scratch == null ? " and no scratch" : ""));
    }
    int firstBits = plan.passes() == 0 ? 0 : plan.bitsOfPass(0);
    int fanout = 1 << firstBits;
    int[] starts = new int[fanout + 1];
    firstPass(source, out, multiPass ? scratch.byteSize() : Long.MAX_VALUE, firstBits, threads, starts);
    offsets.setAtIndex(OFFSET, plan.clusters(), starts[fanout]);
    if (!multiPass) {
      for (int c = 0; c < fanout; c++) {
        offsets.setAtIndex(OFFSET, c, starts[c]);
      }
      return out;
    }
    AtomicInteger nextCluster = new AtomicInteger();
    List<Runnable> tasks = new ArrayList<>();
    for (int t = 0; t < Math.min(threads, fanout); t++) {
      tasks.add(() -> {
        Splitter splitter = new Splitter(plan, offsets);
        for (int c = nextCluster.getAndIncrement(); c < fanout; c = nextCluster.getAndIncrement()) {
          ExecutionControl.checkpoint();
          splitter.split(out, scratch, starts[c], starts[c + 1], 1, firstBits, c);
        }
      });
    }
    Workers.runAll("memwall-partition", tasks);
    return (plan.passes() & 1) == 0 ? scratch : out;
  }

  /**
   * The first pass, from {@code source} to {@code out}: partition d of {@code out} is
   * {@code [starts[d], starts[d + 1])}, and {@code starts[2^bits]} is the tuple count. Refuses,
   * before moving any tuple, a count that {@code out} or {@code scratchBytes} cannot hold.
   */
  private static void firstPass(PackedSource source, MemorySegment out, long scratchBytes, int bits, int threads,
      int[] starts) {
    int fanout = 1 << bits;
    int blocks = source.blocks();
    int workers = Math.max(1, Math.min(threads, blocks));
    int[][] counts = new int[workers][];
    List<Runnable> counting = new ArrayList<>();
    for (int t = 0; t < workers; t++) {
      int thread = t;
      counting.add(() -> counts[thread] = histogram(source, slice(blocks, workers, thread),
          slice(blocks, workers, thread + 1), bits));
    }
    Workers.runAll("memwall-partition", counting);
    int[][] cursors = new int[workers][fanout];
    long position = 0;
    for (int d = 0; d < fanout; d++) {
      starts[d] = (int) Math.min(position, Integer.MAX_VALUE);
      for (int t = 0; t < workers; t++) {
        cursors[t][d] = (int) Math.min(position, Integer.MAX_VALUE);
        position += counts[t][d];
      }
    }
    long bytes = position * PackedTuples.BYTES_PER_TUPLE;
    if (position > Integer.MAX_VALUE || out.byteSize() < bytes || scratchBytes < bytes) {
      throw new IllegalArgumentException(position + " tuples do not fit buffers of " + out.byteSize() + " and "
          + scratchBytes + " bytes");
    }
    starts[fanout] = (int) position;
    List<Runnable> moving = new ArrayList<>();
    for (int t = 0; t < workers; t++) {
      int thread = t;
      // each thread's cursors are an array of its own: no two threads bump counters in one cache line
      moving.add(() -> scatter(source, out, slice(blocks, workers, thread), slice(blocks, workers, thread + 1), bits,
          cursors[thread].clone()));
    }
    Workers.runAll("memwall-partition", moving);
  }

  private static int slice(int count, int threads, int thread) {
    return (int) ((long) count * thread / threads);
  }

  /** Counts the tuples of blocks {@code [from, to)} of {@code source} per value of their top {@code bits} hash bits. */
  private static int[] histogram(PackedSource source, int from, int to, int bits) {
    int[] counts = new int[1 << bits];
    MemorySegment block = newBlock();
    for (int b = from; b < to; b++) {
      ExecutionControl.checkpoint();
      for (int i = 0, n = source.fill(b, block); i < n; i++) {
        counts[partition(block.getAtIndex(WORD, i), 0, bits)]++;
      }
    }
    return counts;
  }

  /** Moves the tuples of blocks {@code [from, to)} of {@code source} to {@code out}, each to its partition's cursor. */
  private static void scatter(PackedSource source, MemorySegment out, int from, int to, int bits, int[] cursor) {
    MemorySegment block = newBlock();
    for (int b = from; b < to; b++) {
      ExecutionControl.checkpoint();
      for (int i = 0, n = source.fill(b, block); i < n; i++) {
        long tuple = block.getAtIndex(WORD, i);
        out.setAtIndex(WORD, cursor[partition(tuple, 0, bits)]++, tuple);
      }
    }
  }

  /** A thread's block of tuples on the heap: 8 KiB, cache-resident. */
  private static MemorySegment newBlock() {
    return MemorySegment.ofArray(new long[PackedSource.BLOCK_TUPLES]);
  }

  /** Moves tuples {@code [from, to)} of {@code in} to {@code out}, each to its partition's cursor. */
  private static void scatter(MemorySegment in, MemorySegment out, int from, int to, int skip, int bits, int[] cursor) {
    for (int i = from; i < to; i++) {
      long tuple = in.getAtIndex(WORD, i);
      out.setAtIndex(WORD, cursor[partition(tuple, skip, bits)]++, tuple);
    }
  }

  /** The partition of {@code tuple} on the {@code bits} hash bits below the top {@code skip}; 0 when {@code bits} is 0. */
  private static int partition(long tuple, int skip, int bits) {
    return bits == 0 ? 0 : PackedTuples.bucketBits(PackedTuples.hash(PackedTuples.key(tuple)), skip, bits);
  }

  /** One thread's later passes: splits a cluster on the remaining passes, depth first. */
  private static final class Splitter {
    private final RadixPlan plan;
    private final MemorySegment offsets;
    /** Per pass: the partitions' starts, then the cursors. */
    private final int[][] starts;
    private final int[][] cursors;

    Splitter(RadixPlan plan, MemorySegment offsets) {
      this.plan = plan;
      this.offsets = offsets;
      this.starts = new int[plan.passes()][];
      this.cursors = new int[plan.passes()][];
      for (int p = 1; p < plan.passes(); p++) {
        starts[p] = new int[(1 << plan.bitsOfPass(p)) + 1];
        cursors[p] = new int[1 << plan.bitsOfPass(p)];
      }
    }

    /**
     * Splits {@code [from, to)} of {@code src} into {@code dst} on pass {@code pass}'s bits (the
     * hash bits below the top {@code skip}), then each part on the passes after it. {@code cluster}
     * numbers the range among the clusters of the pass before; its parts are {@code cluster << bits}
     * onwards, and the last pass writes the final clusters' starts at those indices of {@code offsets}.
     */
    void split(MemorySegment src, MemorySegment dst, int from, int to, int pass, int skip, long cluster) {
      int bits = plan.bitsOfPass(pass);
      int fanout = 1 << bits;
      int[] cursor = cursors[pass];
      int[] start = starts[pass];
      Arrays.fill(cursor, 0);
      for (int i = from; i < to; i++) {
        cursor[partition(src.getAtIndex(WORD, i), skip, bits)]++;
      }
      int position = from;
      for (int d = 0; d < fanout; d++) {
        start[d] = position;
        position += cursor[d];
        cursor[d] = start[d];
      }
      start[fanout] = to;
      scatter(src, dst, from, to, skip, bits, cursor);
      long first = cluster << bits;
      if (pass + 1 == plan.passes()) {
        for (int d = 0; d < fanout; d++) {
          offsets.setAtIndex(OFFSET, first + d, start[d]);
        }
        return;
      }
      for (int d = 0; d < fanout; d++) {
        split(dst, src, start[d], start[d + 1], pass + 1, skip + bits, first + d);
      }
    }
  }
}
