package dev.memwall.join.algorithm;

import dev.memwall.core.partition.RadixPlan;
import dev.memwall.core.partition.HashedTuples;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * Sort-merge join on radix-sorted inputs (seed 000's second baseline, with the sort the seed
 * itself suggests: radix-cluster down to a few tuples per cluster, "radix-join degenerates to
 * sort/merge-join with radix-sort"). Both inputs are radix-clustered on the same B low hash bits,
 * each cluster is then sorted on the whole hash (insertion sort for small clusters, heapsort for
 * large ones, so skew cannot make it quadratic), and matching clusters are merged.
 *
 * <p>The resulting order (radix bits, then hash) is a total order on hashes, so the merge is an
 * ordinary sort-merge on a key that equals the join key for exact key shapes.
 *
 * <p>Memory: as {@link PartitionedJoin} without the cluster tables. Thread safety: stateless.
 */
public final class SortMergeJoin implements JoinMethod<SortMergeJoin.Settings> {
  /** The algorithm. */
  public static final SortMergeJoin METHOD = new SortMergeJoin();
  /** Clusters up to this size are insertion-sorted. */
  static final int INSERTION_SORT_LIMIT = 24;
  private static final ValueLayout.OfLong HASH = HashedTuples.HASH;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  /**
   * How the join runs.
   *
   * @param radix the radix bits and passes both inputs are clustered on
   * @param writeCombining whether clustering scatters through software write-combining buffers
   */
  public record Settings(RadixPlan radix, boolean writeCombining) {
    public Settings {
      Objects.requireNonNull(radix, "radix");
    }
  }

  private SortMergeJoin() {}

  /** Working memory for the given input sizes. */
  public static long bytesFor(long leftRows, long leftNullBound, long rightRows, RadixPlan plan) {
    return HashedSide.bytesFor(leftRows, leftNullBound, plan) + HashedSide.bytesFor(rightRows, 0, plan);
  }

  @Override
  public long workingBytes(JoinInput sides, Settings settings) {
    return bytesFor(sides.left().rowCount(), sides.leftNullBound(), sides.right().rowCount(), settings.radix());
  }

  @Override
  public Details run(JoinInput input, JoinOutput out, Settings settings) {
    RadixPlan plan = settings.radix();
    boolean writeCombining = settings.writeCombining();
    try (HashedSide left = HashedSide.extract(input.memory(), input.left(), input.type().reportsUnmatched());
        HashedSide right = HashedSide.extract(input.memory(), input.right(), false)) {
      left.cluster(plan, writeCombining);
      right.cluster(plan, writeCombining);
      left.emitNullRows(input, out);
      int clusters = plan.clusters();
      HashedTuples lt = left.tuples();
      HashedTuples rt = right.tuples();
      for (int c = 0; c < clusters; c++) {
        sort(lt, left.clusterStart(c), left.clusterStart(c + 1));
        sort(rt, right.clusterStart(c), right.clusterStart(c + 1));
      }
      merge(input, out, lt, rt, left, right, clusters);
    }
    return NoDetails.NONE;
  }

  private static void merge(JoinInput input, JoinOutput out, HashedTuples lt, HashedTuples rt, HashedSide left,
      HashedSide right, int clusters) {
    MemorySegment lh = lt.hashes();
    MemorySegment lr = lt.rows();
    MemorySegment rh = rt.hashes();
    MemorySegment rr = rt.rows();
    RowMatcher matcher = new RowMatcher(input, out);
    for (int c = 0; c < clusters; c++) {
      int i = left.clusterStart(c);
      int le = left.clusterStart(c + 1);
      int j = right.clusterStart(c);
      int re = right.clusterStart(c + 1);
      while (i < le) {
        long h = lh.getAtIndex(HASH, i);
        while (j < re && Long.compareUnsigned(rh.getAtIndex(HASH, j), h) < 0) {
          j++;
        }
        int groupEnd = j;
        while (groupEnd < re && rh.getAtIndex(HASH, groupEnd) == h) {
          groupEnd++;
        }
        // every left tuple with hash h meets the right group [j, groupEnd)
        for (; i < le && lh.getAtIndex(HASH, i) == h; i++) {
          int leftRow = lr.getAtIndex(INT, i);
          for (int k = j; k < groupEnd; k++) {
            if (matcher.offer(leftRow, rr.getAtIndex(INT, k))) {
              break;
            }
          }
          matcher.finish(leftRow);
        }
        j = groupEnd;
      }
    }
  }

  /** Sorts tuples {@code [from, to)} on the unsigned hash. */
  static void sort(HashedTuples t, int from, int to) {
    if (to - from <= INSERTION_SORT_LIMIT) {
      insertionSort(t.hashes(), t.rows(), from, to);
    } else {
      heapSort(t.hashes(), t.rows(), from, to);
    }
  }

  private static void insertionSort(MemorySegment hs, MemorySegment rs, int from, int to) {
    for (int i = from + 1; i < to; i++) {
      long h = hs.getAtIndex(HASH, i);
      int r = rs.getAtIndex(INT, i);
      int j = i - 1;
      while (j >= from && Long.compareUnsigned(hs.getAtIndex(HASH, j), h) > 0) {
        hs.setAtIndex(HASH, j + 1, hs.getAtIndex(HASH, j));
        rs.setAtIndex(INT, j + 1, rs.getAtIndex(INT, j));
        j--;
      }
      hs.setAtIndex(HASH, j + 1, h);
      rs.setAtIndex(INT, j + 1, r);
    }
  }

  private static void heapSort(MemorySegment hs, MemorySegment rs, int from, int to) {
    int n = to - from;
    for (int i = n / 2 - 1; i >= 0; i--) {
      siftDown(hs, rs, from, i, n);
    }
    for (int end = n - 1; end > 0; end--) {
      swap(hs, rs, from, from + end);
      siftDown(hs, rs, from, 0, end);
    }
  }

  private static void siftDown(MemorySegment hs, MemorySegment rs, int base, int i, int n) {
    while (true) {
      int child = 2 * i + 1;
      if (child >= n) {
        return;
      }
      if (child + 1 < n
          && Long.compareUnsigned(hs.getAtIndex(HASH, base + child + 1), hs.getAtIndex(HASH, base + child)) > 0) {
        child++;
      }
      if (Long.compareUnsigned(hs.getAtIndex(HASH, base + child), hs.getAtIndex(HASH, base + i)) <= 0) {
        return;
      }
      swap(hs, rs, base + i, base + child);
      i = child;
    }
  }

  private static void swap(MemorySegment hs, MemorySegment rs, int a, int b) {
    long h = hs.getAtIndex(HASH, a);
    hs.setAtIndex(HASH, a, hs.getAtIndex(HASH, b));
    hs.setAtIndex(HASH, b, h);
    int r = rs.getAtIndex(INT, a);
    rs.setAtIndex(INT, a, rs.getAtIndex(INT, b));
    rs.setAtIndex(INT, b, r);
  }
}
