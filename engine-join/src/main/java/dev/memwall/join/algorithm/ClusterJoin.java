package dev.memwall.join.algorithm;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.partition.Tuples;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The join phase of the radix algorithms, for one pair of matching clusters at a time (seed 000,
 * section 4.3): a bucket-chained hash table on the right cluster probed by the left cluster
 * (phash: about 4 tuples per bucket, at least 256 buckets; phash+: about 1 tuple per bucket, at
 * least 2), or nested loops over both clusters (radix-join, for clusters of a few tuples).
 *
 * <p>Within a cluster all hashes share their low B bits, so the bucket is taken from the hash's top
 * bits. The table arrays are allocated once, for the largest cluster, and reused.
 *
 * <p>Ownership: closes its arrays. Thread safety: one thread per instance.
 */
public final class ClusterJoin implements AutoCloseable {
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

  private static final ValueLayout.OfLong HASH = Tuples.HASH;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  private final JoinInput input;
  private final JoinOutput out;
  private final Kind kind;
  private final OffHeapBuffer headBuffer;
  private final OffHeapBuffer nextBuffer;
  private final MemorySegment heads;
  private final MemorySegment next;
  private final RowMatcher matcher;
  private final boolean reportsUnmatched;

  /** Bytes the tables take for a largest right cluster of {@code largestCluster} tuples. */
  public static long bytesFor(Kind kind, long largestCluster) {
    return 4L * kind.buckets(largestCluster) + 4L * Math.max(1, largestCluster);
  }

  public ClusterJoin(JoinInput input, JoinOutput out, Kind kind, int largestRightCluster) {
    this.input = input;
    this.out = out;
    this.kind = kind;
    EngineMemory memory = input.memory();
    this.headBuffer = memory.allocate(4L * kind.buckets(largestRightCluster));
    try {
      this.nextBuffer = memory.allocate(4L * Math.max(1, largestRightCluster));
    } catch (RuntimeException e) {
      headBuffer.close();
      throw e;
    }
    this.heads = headBuffer.segment();
    this.next = nextBuffer.segment();
    this.matcher = new RowMatcher(input, out);
    this.reportsUnmatched = input.type().reportsUnmatched();
  }

  /** Joins left tuples {@code [ls, le)} of {@code left} with right tuples {@code [rs, re)} of {@code right}. */
  public void join(Tuples left, int ls, int le, Tuples right, int rs, int re) {
    if (ls == le) {
      return;
    }
    if (rs == re) {
      if (reportsUnmatched) {
        MemorySegment lr = left.rows();
        for (int i = ls; i < le; i++) {
          out.emit(lr.getAtIndex(INT, i), dev.memwall.join.JoinIndex.NO_ROW);
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

  private void nestedLoops(Tuples left, int ls, int le, Tuples right, int rs, int re) {
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

  private void hashed(Tuples left, int ls, int le, Tuples right, int rs, int re) {
    int size = re - rs;
    int buckets = kind.buckets(size);
    int shift = 64 - Integer.numberOfTrailingZeros(buckets);
    MemorySegment hd = heads;
    MemorySegment nx = next;
    for (int b = 0; b < buckets; b++) {
      hd.setAtIndex(INT, b, 0);
    }
    MemorySegment rh = right.hashes();
    MemorySegment rr = right.rows();
    for (int j = 0; j < size; j++) {
      int b = (int) (rh.getAtIndex(HASH, rs + j) >>> shift);
      nx.setAtIndex(INT, j, hd.getAtIndex(INT, b));
      hd.setAtIndex(INT, b, j + 1);
    }
    MemorySegment lh = left.hashes();
    MemorySegment lr = left.rows();
    for (int i = ls; i < le; i++) {
      long h = lh.getAtIndex(HASH, i);
      int leftRow = lr.getAtIndex(INT, i);
      for (int e = hd.getAtIndex(INT, (int) (h >>> shift)); e != 0; e = nx.getAtIndex(INT, e - 1)) {
        if (rh.getAtIndex(HASH, rs + e - 1) == h && matcher.offer(leftRow, rr.getAtIndex(INT, rs + e - 1))) {
          break;
        }
      }
      matcher.finish(leftRow);
    }
  }

  @Override
  public void close() {
    headBuffer.close();
    nextBuffer.close();
  }
}
