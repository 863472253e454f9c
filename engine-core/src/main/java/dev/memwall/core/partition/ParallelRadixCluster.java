package dev.memwall.core.partition;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.concurrent.Workers;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Radix-clustering with several threads: the first pass splits the input among the threads and
 * coordinates their writes with one of the four {@link PartitionWriter}s of Cieslewicz and Ross;
 * later passes (seed 000's multi-pass scheme) hand the first pass's clusters to the threads, each
 * clustering its clusters on its own.
 *
 * <p>Memory: as {@link RadixCluster}, plus small per-thread heap scratch (histograms, write-combining
 * buffers, a level array of {@code 4 x 2^(B - B_1)} bytes per thread for multi-pass plans).
 *
 * <p>Thread safety: the call starts and joins its own threads; concurrent calls must not share
 * buffers. A failure in any thread is rethrown after all have stopped.
 */
public final class ParallelRadixCluster {
  private static final ValueLayout.OfLong HASH = HashedTuples.HASH;
  private static final ValueLayout.OfInt ROW = HashedTuples.ROW;
  private static final ValueLayout.OfInt OFFSET = ValueLayout.JAVA_INT;
  /** Tuples a thread claims at once from a partition's region with {@link PartitionWriter#PARALLEL_BUFFERS}. */
  static final int CHUNK_TUPLES = 64;

  private ParallelRadixCluster() {}

  /**
   * Fragments of a one-pass {@link PartitionWriter#INDEPENDENT} partitioning: thread t's part of
   * partition p is {@code [start(t, p), start(t, p + 1))}.
   */
  public record Fragments(int threads, int partitions, int[] starts) {
    public int start(int thread, int partition) {
      return starts[thread * (partitions + 1) + partition];
    }
  }

  /**
   * Clusters the first {@code count} tuples of {@code input} by {@code plan} with {@code threads}
   * threads; the output is as {@link RadixCluster#cluster}'s (contiguous, ordered on the radix bits).
   *
   * @param writer how the first pass coordinates; {@link PartitionWriter#INDEPENDENT} is refused here
   *     because its fragmented output cannot be ordered (use {@link #partitionIndependent})
   * @return the buffer holding the result, {@code input} or {@code scratch}
   */
  public static HashedTuples cluster(HashedTuples input, HashedTuples scratch, int count, RadixPlan plan, int threads,
      PartitionWriter writer, boolean writeCombining, MemorySegment offsets) {
    if (writer == PartitionWriter.INDEPENDENT) {
      throw new IllegalArgumentException("INDEPENDENT output is fragmented per thread; use partitionIndependent");
    }
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, got " + threads);
    }
    if (count > input.capacity() || count > scratch.capacity() || offsets.byteSize() < RadixCluster.offsetsBytes(plan)) {
      throw new IllegalArgumentException("buffers too small for " + count + " tuples and " + plan);
    }
    if (plan.passes() == 0) {
      offsets.setAtIndex(OFFSET, 0, 0);
      offsets.setAtIndex(OFFSET, 1, count);
      return input;
    }
    int firstBits = plan.bitsOfPass(0);
    int fanout = 1 << firstBits;
    int shift = plan.bits() - firstBits;
    int[] firstStarts = new int[fanout + 1];
    firstPass(input, scratch, count, shift, firstBits, threads, writer, firstStarts);
    if (plan.passes() == 1) {
      for (int p = 0; p < fanout; p++) {
        offsets.setAtIndex(OFFSET, p, firstStarts[p]);
      }
      offsets.setAtIndex(OFFSET, fanout, count);
      return scratch;
    }
    int[] rest = new int[plan.passes() - 1];
    for (int p = 1; p < plan.passes(); p++) {
      rest[p - 1] = plan.bitsOfPass(p);
    }
    RadixPlan restPlan = RadixPlan.of(rest);
    AtomicInteger nextCluster = new AtomicInteger();
    List<Runnable> tasks = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      tasks.add(() -> {
        MemorySegment level = MemorySegment.ofArray(new int[restPlan.clusters() + 1]);
        for (int c = nextCluster.getAndIncrement(); c < fanout; c = nextCluster.getAndIncrement()) {
          ExecutionControl.checkpoint();
          RadixCluster.clusterRange(scratch, input, firstStarts[c], firstStarts[c + 1], restPlan, writeCombining,
              offsets, (long) c << restPlan.bits(), level);
        }
      });
    }
    Workers.runAll("memwall-partition", tasks);
    offsets.setAtIndex(OFFSET, plan.clusters(), count);
    return (restPlan.passes() & 1) == 0 ? scratch : input;
  }

  /** One pass, contiguous output: partition p of {@code out} is {@code [starts[p], starts[p + 1])}. */
  static void firstPass(HashedTuples in, HashedTuples out, int count, int shift, int bits, int threads, PartitionWriter writer,
      int[] starts) {
    int fanout = 1 << bits;
    int mask = fanout - 1;
    int[][] counts = new int[threads][];
    List<Runnable> countTasks = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      countTasks.add(() -> counts[thread] = histogram(in, sliceStart(count, threads, thread),
          sliceStart(count, threads, thread + 1), shift, mask));
    }
    Workers.runAll("memwall-partition", countTasks);
    int position = 0;
    for (int p = 0; p < fanout; p++) {
      starts[p] = position;
      for (int t = 0; t < threads; t++) {
        position += counts[t][p];
      }
    }
    starts[fanout] = count;
    List<Runnable> moveTasks = new ArrayList<>();
    switch (writer) {
      case COUNT_THEN_MOVE -> {
        int[][] cursors = new int[threads][fanout];
        for (int p = 0; p < fanout; p++) {
          int at = starts[p];
          for (int t = 0; t < threads; t++) {
            cursors[t][p] = at;
            at += counts[t][p];
          }
        }
        for (int t = 0; t < threads; t++) {
          int thread = t;
          // each thread moves with its own copy of its cursors: the rows of cursors are neighbours
          // in memory, and with a small fanout two threads' cursors would share a cache line
          moveTasks.add(() -> RadixCluster.moveWithCursors(in, out, sliceStart(count, threads, thread),
              sliceStart(count, threads, thread + 1), shift, mask, cursors[thread].clone()));
        }
      }
      case CONCURRENT -> {
        AtomicIntegerArray cursor = new AtomicIntegerArray(java.util.Arrays.copyOf(starts, fanout));
        for (int t = 0; t < threads; t++) {
          int thread = t;
          moveTasks.add(() -> moveConcurrent(in, out, sliceStart(count, threads, thread),
              sliceStart(count, threads, thread + 1), shift, mask, cursor));
        }
      }
      case PARALLEL_BUFFERS -> {
        AtomicIntegerArray cursor = new AtomicIntegerArray(java.util.Arrays.copyOf(starts, fanout));
        ChunkState[] states = new ChunkState[threads];
        for (int t = 0; t < threads; t++) {
          int thread = t;
          moveTasks.add(() -> states[thread] = moveChunked(in, out, sliceStart(count, threads, thread),
              sliceStart(count, threads, thread + 1), shift, mask, cursor, starts));
        }
        Workers.runAll("memwall-partition", moveTasks);
        compactChunks(out, states, fanout);
        return;
      }
      case INDEPENDENT -> throw new IllegalArgumentException("INDEPENDENT output is fragmented");
    }
    Workers.runAll("memwall-partition", moveTasks);
  }

  /**
   * One pass with {@link PartitionWriter#INDEPENDENT} output: thread t partitions input slice t into
   * the same slice of {@code out}; no coordination, each partition one fragment per thread.
   */
  public static Fragments partitionIndependent(HashedTuples in, HashedTuples out, int count, int bits, int threads) {
    int fanout = 1 << bits;
    int mask = fanout - 1;
    int[] starts = new int[threads * (fanout + 1)];
    List<Runnable> tasks = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      tasks.add(() -> {
        int from = sliceStart(count, threads, thread);
        int to = sliceStart(count, threads, thread + 1);
        int[] hist = histogram(in, from, to, 0, mask);
        int[] cursor = new int[fanout];
        int at = from;
        int base = thread * (fanout + 1);
        for (int p = 0; p < fanout; p++) {
          starts[base + p] = at;
          cursor[p] = at;
          at += hist[p];
        }
        starts[base + fanout] = to;
        RadixCluster.moveWithCursors(in, out, from, to, 0, mask, cursor);
      });
    }
    Workers.runAll("memwall-partition", tasks);
    return new Fragments(threads, fanout, starts);
  }

  static int sliceStart(int count, int threads, int thread) {
    return (int) ((long) count * thread / threads);
  }

  private static int[] histogram(HashedTuples in, int from, int to, int shift, int mask) {
    int[] hist = new int[mask + 1];
    RadixCluster.histogram(in, from, to, shift, mask, hist);
    return hist;
  }

  /**
   * {@link RadixCluster#moveWithCursors} over a cursor the threads share: kept as its own loop so the
   * plain one pays for no atomic increment.
   */
  private static void moveConcurrent(HashedTuples in, HashedTuples out, int from, int to, int shift, int mask,
      AtomicIntegerArray cursor) {
    MemorySegment ih = in.hashes();
    MemorySegment ir = in.rows();
    MemorySegment oh = out.hashes();
    MemorySegment or = out.rows();
    for (int i = from; i < to; i++) {
      long h = ih.getAtIndex(HASH, i);
      int j = cursor.getAndIncrement((int) (h >>> shift) & mask);
      oh.setAtIndex(HASH, j, h);
      or.setAtIndex(ROW, j, ir.getAtIndex(ROW, i));
    }
  }

  /** A thread's open chunk per partition, and the tuples it could not place (the regions were claimed out). */
  private record ChunkState(int[] next, int[] end, long[] overflowHashes, int[] overflowRows, int[] overflowPartition,
      int overflow) {}

  private static ChunkState moveChunked(HashedTuples in, HashedTuples out, int from, int to, int shift, int mask,
      AtomicIntegerArray cursor, int[] starts) {
    int fanout = mask + 1;
    int[] next = new int[fanout];
    int[] end = new int[fanout];
    long[] spillHashes = new long[16];
    int[] spillRows = new int[16];
    int[] spillPartition = new int[16];
    int spilled = 0;
    MemorySegment ih = in.hashes();
    MemorySegment ir = in.rows();
    MemorySegment oh = out.hashes();
    MemorySegment or = out.rows();
    for (int i = from; i < to; i++) {
      long h = ih.getAtIndex(HASH, i);
      int p = (int) (h >>> shift) & mask;
      if (next[p] == end[p]) {
        int claimed = cursor.getAndAdd(p, CHUNK_TUPLES);
        int limit = starts[p + 1];
        if (claimed >= limit) { // region claimed out by other threads' partial chunks: place later
          if (spilled == spillHashes.length) {
            spillHashes = java.util.Arrays.copyOf(spillHashes, spilled * 2);
            spillRows = java.util.Arrays.copyOf(spillRows, spilled * 2);
            spillPartition = java.util.Arrays.copyOf(spillPartition, spilled * 2);
          }
          spillHashes[spilled] = h;
          spillRows[spilled] = ir.getAtIndex(ROW, i);
          spillPartition[spilled++] = p;
          continue;
        }
        next[p] = claimed;
        end[p] = Math.min(limit, claimed + CHUNK_TUPLES);
      }
      int j = next[p]++;
      oh.setAtIndex(HASH, j, h);
      or.setAtIndex(ROW, j, ir.getAtIndex(ROW, i));
    }
    return new ChunkState(next, end, spillHashes, spillRows, spillPartition, spilled);
  }

  /** Fills the unused tails of the threads' last chunks with the tuples that found no room. */
  private static void compactChunks(HashedTuples out, ChunkState[] states, int fanout) {
    MemorySegment oh = out.hashes();
    MemorySegment or = out.rows();
    for (ChunkState spill : states) {
      for (int s = 0; s < spill.overflow(); s++) {
        int p = spill.overflowPartition()[s];
        boolean placed = false;
        for (ChunkState hole : states) {
          if (hole.next()[p] < hole.end()[p]) {
            int j = hole.next()[p]++;
            oh.setAtIndex(HASH, j, spill.overflowHashes()[s]);
            or.setAtIndex(ROW, j, spill.overflowRows()[s]);
            placed = true;
            break;
          }
        }
        if (!placed) {
          throw new IllegalStateException("parallel buffers: no hole left in partition " + p);
        }
      }
    }
  }
}
