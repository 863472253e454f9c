package dev.memwall.join.algorithm;

import dev.memwall.core.partition.PackedRadixCluster;
import dev.memwall.core.partition.PackedTuples;
import dev.memwall.core.partition.HashedTuples;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The join phase of the radix algorithms, for one pair of matching clusters at a time (seed 000,
 * section 4.3): a bucket-chained hash table on the right cluster probed by the left cluster
 * (phash: about 4 tuples per bucket, at least 256 buckets; phash+: about 1 tuple per bucket, at
 * least 2), or nested loops over both clusters (radix-join, for clusters of a few tuples).
 *
 * <p>Within a cluster of {@link HashedTuples} all hashes share their low B bits, so the bucket is taken
 * from the hash's top bits; within a cluster of {@link PackedTuples} ({@link #joinPacked}) they share
 * their top B bits, so the bucket is taken from the bits below. The table arrays are allocated once,
 * for the largest cluster, and reused.
 *
 * <p>Ownership: nothing off-heap; its tables are heap arrays ({@link #tableBytes}), which the caller
 * charges to the join's budget. Thread safety: one thread per instance.
 */
public final class ClusterJoin {
  /** How a cluster pair is joined. */
  public enum Kind {
    /** Hash table with about 4 tuples per bucket and at least 256 buckets (seed 000's original). */
    PHASH(4, 256),
    /** Hash table with about 1 tuple per bucket and at least 2 buckets (seed 000's improved). */
    PHASH_PLUS(1, 2),
    /** Nested loops (radix-join); clusters too large for that (skew) fall back to {@link #PHASH_PLUS}. */
    NESTED_LOOPS(1, 2);

    final int tuplesPerBucket;
    final int minBuckets;

    Kind(int tuplesPerBucket, int minBuckets) {
      this.tuplesPerBucket = tuplesPerBucket;
      this.minBuckets = minBuckets;
    }

    /** Buckets of the table for a right cluster of {@code size} tuples. */
    public int buckets(long size) {
      long wanted = Math.max(1, (size + tuplesPerBucket - 1) / tuplesPerBucket);
      return (int) Math.max(minBuckets, Long.highestOneBit(wanted * 2 - 1));
    }
  }

  /**
   * The largest right cluster radix-join still joins with nested loops: above it (skewed input),
   * the quadratic loop would dominate, so the pair is hash-joined instead.
   */
  public static final int NESTED_LOOP_LIMIT = 64;

  private static final ValueLayout.OfLong HASH = HashedTuples.HASH;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  private static final ValueLayout.OfLong WORD = PackedTuples.WORD;

  private final JoinInput input;
  private final JoinOutput out;
  private final Kind kind;
  /** Bucket heads (tuple index + 1 within the right cluster, 0 for none) and chains, for the largest right cluster. */
  private final int[] heads;
  private final int[] next;
  private final RowMatcher matcher;
  private final boolean reportsUnmatched;

  /**
   * A cluster joiner whose tables fit a right cluster of up to {@code largestRightCluster} tuples.
   * The tables are heap arrays: per-thread scratch of about 8 bytes per tuple of the largest right
   * cluster, read at random in the hottest loop, where off-heap segments' bounds and liveness checks
   * cost more than the arrays' (docs/benchmarks/joins.md).
   */
  public ClusterJoin(JoinInput input, JoinOutput out, Kind kind, int largestRightCluster) {
    this.input = input;
    this.out = out;
    this.kind = kind;
    this.heads = new int[kind.buckets(largestRightCluster)];
    this.next = new int[Math.max(1, largestRightCluster)];
    this.matcher = new RowMatcher(input, out);
    this.reportsUnmatched = input.type().reportsUnmatched();
  }

  /** The heap bytes of one joiner's tables for a right cluster of up to {@code largestRightCluster} tuples. */
  public static long tableBytes(Kind kind, int largestRightCluster) {
    return (long) Integer.BYTES * (kind.buckets(largestRightCluster) + Math.max(1, largestRightCluster));
  }

  /** Joins left tuples {@code [ls, le)} of {@code left} with right tuples {@code [rs, re)} of {@code right}. */
  public void join(HashedTuples left, int ls, int le, HashedTuples right, int rs, int re) {
    if (ls == le) {
      return;
    }
    if (rs == re) {
      if (reportsUnmatched) {
        MemorySegment lr = left.rows();
        for (int i = ls; i < le; i++) {
          out.emit(lr.getAtIndex(INT, i), dev.memwall.join.common.JoinIndex.NO_ROW);
        }
      }
      return;
    }
    if (kind == Kind.NESTED_LOOPS && re - rs <= NESTED_LOOP_LIMIT) {
      nestedLoops(left, ls, le, right, rs, re);
    } else {
      hashed(left, ls, le, right, rs, re);
    }
  }

  private void nestedLoops(HashedTuples left, int ls, int le, HashedTuples right, int rs, int re) {
    MemorySegment lh = left.hashes();
    MemorySegment lr = left.rows();
    MemorySegment rh = right.hashes();
    MemorySegment rr = right.rows();
    for (int i = ls; i < le; i++) {
      long h = lh.getAtIndex(HASH, i);
      int leftRow = lr.getAtIndex(INT, i);
      for (int j = rs; j < re; j++) {
        if (rh.getAtIndex(HASH, j) == h && matcher.offer(leftRow, rr.getAtIndex(INT, j))) {
          break;
        }
      }
      matcher.finish(leftRow);
    }
  }

  private void hashed(HashedTuples left, int ls, int le, HashedTuples right, int rs, int re) {
    int size = re - rs;
    int buckets = kind.buckets(size);
    int shift = 64 - Integer.numberOfTrailingZeros(buckets);
    int[] hd = heads;
    int[] nx = next;
    Arrays.fill(hd, 0, buckets, 0);
    MemorySegment rh = right.hashes();
    MemorySegment rr = right.rows();
    for (int j = 0; j < size; j++) {
      int b = (int) (rh.getAtIndex(HASH, rs + j) >>> shift);
      nx[j] = hd[b];
      hd[b] = j + 1;
    }
    MemorySegment lh = left.hashes();
    MemorySegment lr = left.rows();
    for (int i = ls; i < le; i++) {
      long h = lh.getAtIndex(HASH, i);
      int leftRow = lr.getAtIndex(INT, i);
      for (int e = hd[(int) (h >>> shift)]; e != 0; e = nx[e - 1]) {
        if (rh.getAtIndex(HASH, rs + e - 1) == h && matcher.offer(leftRow, rr.getAtIndex(INT, rs + e - 1))) {
          break;
        }
      }
      matcher.finish(leftRow);
    }
  }

  /**
   * Joins left {@link PackedTuples} {@code [ls, le)} of {@code left} with right ones
   * {@code [rs, re)} of {@code right}: a cluster pair of a {@link PackedRadixCluster} clustering on
   * the top {@code clusterBits} bits of the hash, so the buckets take the bits below those.
   */
  public void joinPacked(MemorySegment left, int ls, int le, MemorySegment right, int rs, int re, int clusterBits) {
    if (ls == le) {
      return;
    }
    if (rs == re) {
      if (reportsUnmatched) {
        for (int i = ls; i < le; i++) {
          out.emit(PackedTuples.row(left.getAtIndex(WORD, i)), dev.memwall.join.common.JoinIndex.NO_ROW);
        }
      }
      return;
    }
    if (kind == Kind.NESTED_LOOPS && re - rs <= NESTED_LOOP_LIMIT) {
      nestedLoopsPacked(left, ls, le, right, rs, re);
    } else {
      hashedPacked(left, ls, le, right, rs, re, clusterBits);
    }
  }

  private void nestedLoopsPacked(MemorySegment left, int ls, int le, MemorySegment right, int rs, int re) {
    for (int i = ls; i < le; i++) {
      long tuple = left.getAtIndex(WORD, i);
      int key = PackedTuples.key(tuple);
      int leftRow = PackedTuples.row(tuple);
      for (int j = rs; j < re; j++) {
        long candidate = right.getAtIndex(WORD, j);
        if (PackedTuples.key(candidate) == key && matcher.offer(leftRow, PackedTuples.row(candidate))) {
          break;
        }
      }
      matcher.finish(leftRow);
    }
  }

  private void hashedPacked(MemorySegment left, int ls, int le, MemorySegment right, int rs, int re, int clusterBits) {
    int size = re - rs;
    int buckets = kind.buckets(size);
    int bucketBits = Integer.numberOfTrailingZeros(buckets);
    int[] hd = heads;
    int[] nx = next;
    Arrays.fill(hd, 0, buckets, 0);
    for (int j = 0; j < size; j++) {
      int key = PackedTuples.key(right.getAtIndex(WORD, rs + j));
      int b = PackedTuples.bucketBits(PackedTuples.hash(key), clusterBits, bucketBits);
      nx[j] = hd[b];
      hd[b] = j + 1;
    }
    for (int i = ls; i < le; i++) {
      long tuple = left.getAtIndex(WORD, i);
      int key = PackedTuples.key(tuple);
      int leftRow = PackedTuples.row(tuple);
      int b = PackedTuples.bucketBits(PackedTuples.hash(key), clusterBits, bucketBits);
      for (int e = hd[b]; e != 0; e = nx[e - 1]) {
        long candidate = right.getAtIndex(WORD, rs + e - 1);
        if (PackedTuples.key(candidate) == key && matcher.offer(leftRow, PackedTuples.row(candidate))) {
          break;
        }
      }
      matcher.finish(leftRow);
    }
  }
}
