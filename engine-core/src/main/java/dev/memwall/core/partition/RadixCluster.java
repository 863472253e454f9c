package dev.memwall.core.partition;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Radix-cluster (seed 000, section 3.3): reorders {@link HashedTuples} so that tuples with equal low
 * {@code B} hash bits are adjacent, ordered by those bits, in {@code P} passes of
 * histogram-then-scatter. Each pass splits every cluster of the previous pass on the next most
 * significant bits, so one pass writes to at most 2^{B_p} places at a time.
 *
 * <p>Scatter: either direct (each tuple stored at its cluster's cursor) or through software
 * write-combining buffers: one cache line of hashes (8 tuples) and the matching row ids per
 * cluster, gathered in a small buffer that stays in the L1/L2 cache and copied out when full, so the
 * scattered writes touch a destination page once per 8 tuples instead of once per tuple (fewer TLB
 * misses, no read-for-ownership of half-written lines from far away).
 *
 * <p>Memory: the caller supplies the input, an equally large scratch buffer (the passes ping-pong
 * between them, so the input is overwritten when there are two or more passes) and the int arrays
 * for the cluster boundaries; the only other memory is per-call scratch on the Java heap: a
 * histogram and the write-combining buffers, {@code 2^{B_p} x 100} bytes at most.
 *
 * <p>Thread safety: stateless; concurrent calls must not share buffers.
 */
public final class RadixCluster {
  private static final ValueLayout.OfLong HASH = HashedTuples.HASH;
  private static final ValueLayout.OfInt ROW = HashedTuples.ROW;
  private static final ValueLayout.OfInt OFFSET = ValueLayout.JAVA_INT;
  /** Tuples a write-combining buffer holds: one 64-byte line of hashes. */
  static final int LINE_TUPLES = 8;

  private RadixCluster() {}

  /** Bytes of the boundary arrays {@link #cluster} needs (each of {@code offsets} and {@code levelScratch}). */
  public static long offsetsBytes(RadixPlan plan) {
    return ((long) plan.clusters() + 1) * Integer.BYTES;
  }

  /** The size of the largest of {@code clusters} clusters whose boundaries {@code offsets} holds (as {@link #cluster} writes them). */
  public static int largestCluster(MemorySegment offsets, int clusters) {
    int largest = 0;
    for (int c = 0; c < clusters; c++) {
      largest = Math.max(largest, offsets.getAtIndex(OFFSET, c + 1) - offsets.getAtIndex(OFFSET, c));
    }
    return largest;
  }

  /**
   * Clusters the first {@code count} tuples of {@code input} on the low {@code plan.bits()} bits of
   * their hash.
   *
   * @param scratch at least {@code count} tuples; overwritten
   * @param offsets receives {@code 2^B + 1} ints: cluster {@code c} occupies
   *     {@code [offsets[c], offsets[c + 1])} of the returned buffer
   * @param levelScratch as large as {@code offsets}; holds the boundaries of the earlier passes
   * @param writeCombining whether to scatter through software write-combining buffers
   * @return the buffer holding the clustered tuples: {@code input} or {@code scratch}
   */
  public static HashedTuples cluster(HashedTuples input, HashedTuples scratch, long count, RadixPlan plan, boolean writeCombining,
      MemorySegment offsets, MemorySegment levelScratch) {
    if (count < 0 || count > input.capacity() || count > scratch.capacity() || count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("cannot cluster " + count + " tuples with buffers of "
          + input.capacity() + " and " + scratch.capacity());
    }
    long needed = offsetsBytes(plan);
    if (offsets.byteSize() < needed || (plan.passes() > 1 && levelScratch.byteSize() < needed)) {
      throw new IllegalArgumentException("cluster boundaries for " + plan + " need " + needed + " bytes");
    }
    int n = (int) count;
    if (plan.passes() == 0) {
      offsets.setAtIndex(OFFSET, 0, 0);
      offsets.setAtIndex(OFFSET, 1, n);
      return input;
    }
    HashedTuples result = clusterRange(input, scratch, 0, n, plan, writeCombining, offsets, 0, levelScratch);
    offsets.setAtIndex(OFFSET, plan.clusters(), n);
    return result;
  }

  /**
   * Clusters tuples {@code [from, to)} of {@code input} (indices into both buffers) by {@code plan}
   * and writes the start of each of its {@code 2^B} clusters to {@code offsets[offsetBase + c]} (the
   * end of the last one, {@code to}, is the caller's to record). Ranges that do not overlap may be
   * clustered concurrently when each call has its own {@code levelScratch}.
   *
   * @return the buffer holding the clustered range: {@code input} when the passes are even, else {@code scratch}
   */
  public static HashedTuples clusterRange(HashedTuples input, HashedTuples scratch, int from, int to, RadixPlan plan,
      boolean writeCombining, MemorySegment offsets, long offsetBase, MemorySegment levelScratch) {
    int passes = plan.passes();
    if (passes == 0) {
      offsets.setAtIndex(OFFSET, offsetBase, from);
      return input;
    }
    int maxFanout = 0;
    for (int p = 0; p < passes; p++) {
      maxFanout = Math.max(maxFanout, 1 << plan.bitsOfPass(p));
    }
    Scatter scatter = new Scatter(maxFanout, writeCombining);
    HashedTuples src = input;
    HashedTuples dst = scratch;
    MemorySegment previous = null;
    long previousBase = 0;
    int clustersBefore = 1;
    int shift = plan.bits();
    for (int p = 0; p < passes; p++) {
      int passBits = plan.bitsOfPass(p);
      shift -= passBits;
      // the last pass writes `offsets`; earlier ones alternate so no pass reads what it writes
      boolean last = ((passes - 1 - p) & 1) == 0;
      MemorySegment out = last ? offsets : levelScratch;
      long outBase = last ? offsetBase : 0;
      for (int c = 0; c < clustersBefore; c++) {
        int start = previous == null ? from : previous.getAtIndex(OFFSET, previousBase + c);
        int end = previous == null ? to
            : c + 1 < clustersBefore ? previous.getAtIndex(OFFSET, previousBase + c + 1) : to;
        scatter.pass(src, dst, start, end, shift, passBits, out, outBase + ((long) c << passBits));
      }
      clustersBefore <<= passBits;
      previous = out;
      previousBase = outBase;
      HashedTuples t = src;
      src = dst;
      dst = t;
    }
    return src;
  }

  /**
   * Adds to {@code hist[d]} the number of tuples in {@code [from, to)} of {@code in} whose hash bits
   * from {@code shift} on, masked by {@code mask}, are {@code d}: a pass's histogram, here and in
   * {@link ParallelRadixCluster}.
   */
  static void histogram(HashedTuples in, int from, int to, int shift, int mask, int[] hist) {
    MemorySegment hashes = in.hashes();
    for (int i = from; i < to; i++) {
      hist[(int) (hashes.getAtIndex(HASH, i) >>> shift) & mask]++;
    }
  }

  /**
   * The direct scatter: moves each tuple of {@code [from, to)} of {@code in} to {@code out} at its
   * cluster's cursor ({@code cursor[d]}, which it advances), here and in {@link ParallelRadixCluster}'s
   * count-then-move and independent writers. {@link ParallelRadixCluster}'s concurrent writer is its
   * twin over an atomic cursor.
   */
  static void moveWithCursors(HashedTuples in, HashedTuples out, int from, int to, int shift, int mask, int[] cursor) {
    MemorySegment ih = in.hashes();
    MemorySegment ir = in.rows();
    MemorySegment oh = out.hashes();
    MemorySegment or = out.rows();
    for (int i = from; i < to; i++) {
      long h = ih.getAtIndex(HASH, i);
      int j = cursor[(int) (h >>> shift) & mask]++;
      oh.setAtIndex(HASH, j, h);
      or.setAtIndex(ROW, j, ir.getAtIndex(ROW, i));
    }
  }

  /** One pass's scatter state, reused for every cluster of every pass. */
  private static final class Scatter {
    private final int[] histogram;
    private final int[] cursor;
    private final boolean writeCombining;
    private final long[] lineHashes;
    private final int[] lineRows;
    private final int[] lineFill;

    Scatter(int maxFanout, boolean writeCombining) {
      this.histogram = new int[maxFanout];
      this.cursor = new int[maxFanout];
      this.writeCombining = writeCombining;
      this.lineHashes = writeCombining ? new long[maxFanout * LINE_TUPLES] : null;
      this.lineRows = writeCombining ? new int[maxFanout * LINE_TUPLES] : null;
      this.lineFill = writeCombining ? new int[maxFanout] : null;
    }

    /** Splits {@code [from, to)} of {@code src} on bits {@code [shift, shift + bits)} into {@code dst}. */
    void pass(HashedTuples src, HashedTuples dst, int from, int to, int shift, int bits, MemorySegment out, long outBase) {
      int fanout = 1 << bits;
      int mask = fanout - 1;
      int[] hist = histogram;
      Arrays.fill(hist, 0, fanout, 0);
      histogram(src, from, to, shift, mask, hist);
      int position = from;
      int[] cur = cursor;
      for (int d = 0; d < fanout; d++) {
        out.setAtIndex(OFFSET, outBase + d, position);
        cur[d] = position;
        position += hist[d];
      }
      if (writeCombining && to - from >= fanout * LINE_TUPLES) {
        scatterCombining(src, dst, from, to, shift, mask);
      } else {
        moveWithCursors(src, dst, from, to, shift, mask, cursor);
      }
    }

    /**
     * The write-combining twin of {@link RadixCluster#moveWithCursors}, kept as its own loop: it
     * scatters through the line buffers.
     */
    private void scatterCombining(HashedTuples src, HashedTuples dst, int from, int to, int shift, int mask) {
      MemorySegment srcHashes = src.hashes();
      MemorySegment srcRows = src.rows();
      MemorySegment dstHashes = dst.hashes();
      MemorySegment dstRows = dst.rows();
      int[] cur = cursor;
      long[] bufHashes = lineHashes;
      int[] bufRows = lineRows;
      int[] fill = lineFill;
      Arrays.fill(fill, 0, mask + 1, 0);
      for (int i = from; i < to; i++) {
        long h = srcHashes.getAtIndex(HASH, i);
        int d = (int) (h >>> shift) & mask;
        int k = fill[d];
        int slot = (d << 3) + k;
        bufHashes[slot] = h;
        bufRows[slot] = srcRows.getAtIndex(ROW, i);
        if (k == LINE_TUPLES - 1) {
          int j = cur[d];
          int base = d << 3;
          for (int t = 0; t < LINE_TUPLES; t++) {
            dstHashes.setAtIndex(HASH, j + t, bufHashes[base + t]);
            dstRows.setAtIndex(ROW, j + t, bufRows[base + t]);
          }
          cur[d] = j + LINE_TUPLES;
          fill[d] = 0;
        } else {
          fill[d] = k + 1;
        }
      }
      for (int d = 0; d <= mask; d++) {
        int j = cur[d];
        int base = d << 3;
        for (int t = 0, k = fill[d]; t < k; t++) {
          dstHashes.setAtIndex(HASH, j + t, bufHashes[base + t]);
          dstRows.setAtIndex(ROW, j + t, bufRows[base + t]);
        }
      }
    }
  }
}
