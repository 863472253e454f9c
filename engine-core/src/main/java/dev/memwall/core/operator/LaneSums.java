package dev.memwall.core.operator;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Magnitude;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Adds a chunk's values of several sums (and the row count) into per-group accumulators.
 *
 * <p>Up to {@link #MAX_GROUPS} groups, a chunk's sums are formed apart from the accumulators and
 * added to them once per chunk, by one of three loops:
 * <ul>
 *   <li><b>Masked</b>, for at most {@link #MASKED_GROUPS} groups: each group gets a mask of the
 *       chunk's rows (all ones where a selected row belongs to it), and each sum is the plain
 *       reduction of {@code value & mask} over the chunk. The loop has no indirection and no
 *       branch, so the JIT compiles it to SIMD; its cost grows with the groups, which is why it is
 *       kept for very few.
 *   <li><b>Grouped</b>: the selected rows are ordered by group once per chunk (a counting sort of
 *       positions), then each group's sum of each column is a reduction in a register. Adding
 *       into per-group slots instead would make consecutive rows of a group wait on each other's
 *       store (a loop-carried dependency through memory).
 *   <li><b>Lanes, checked</b>: consecutive rows spread over {@link #LANES} partial sums per group,
 *       each addition checked for overflow.
 * </ul>
 * The first two add without overflow checks, which is what makes them fast, and are taken only
 * when every value they read (the masked loop: every row of the chunk; the grouped loop: the
 * selected rows) lies in [-2<sup>52</sup>, 2<sup>52</sup>): a sum of at most
 * {@link Chunk#CAPACITY} such values cannot overflow. Values that large (rare: a DECIMAL(15,2)
 * stays below 2<sup>50</sup>) take the checked lanes.
 *
 * <p>Exact: overflow throws {@link ArithmeticException}. If a partial sum overflows although a
 * group's total might not, the chunk is redone without lanes, so only a true overflow throws. The
 * masked and grouped loops compute every new total before writing any, so their overflow leaves
 * the accumulators as they were.
 *
 * <p>Thread safety: none; one per aggregation worker.
 */
final class LaneSums {
  /** Groups up to which lanes are used. */
  static final int MAX_GROUPS = 256;
  /** Groups up to which the masked loop is used: each group costs one pass over the chunk per sum. */
  static final int MASKED_GROUPS = 4;
  /** A value vector of ones, for counting rows. */
  static final long[] ONES = filledWithOnes();

  private static final int LANES = 4;
  /** Bits of magnitude every value of a chunk must fit in for the unchecked loops (see the class comment). */
  private static final int UNCHECKED_BITS = 52;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

  private long[] partial = new long[0];
  private long[] totals = new long[0];
  private long[] bases = new long[0];
  /** Per group, all ones at the rows of the chunk that belong to it; allocated when first needed. */
  private long[][] masks;
  private final int[] order = new int[Chunk.CAPACITY];
  private final int[] starts = new int[MAX_GROUPS + 1];
  private final int[] next = new int[MAX_GROUPS];

  /**
   * For each sum {@code s < sums} and each listed row {@code k}, adds {@code values[s][k]} to
   * group {@code groupIds[k]}'s slot of {@code targets[s]} (all columns of one {@link GroupColumns}).
   * {@code positions} lists {@code n} rows below {@code rows}, and every value array holds
   * {@code rows} values (those of unlisted rows are read but never added).
   */
  void add(long[][] values, GroupColumns.Column[] targets, int sums, int[] positions, int n, int rows,
      int[] groupIds, int groups) {
    if (groups > MAX_GROUPS) {
      addDirect(values, targets, sums, positions, n, groupIds);
    } else if (groups <= MASKED_GROUPS && fitUnchecked(values, sums, rows)) {
      addMasked(values, targets, sums, positions, n, rows, groupIds, groups);
    } else if (groups > MASKED_GROUPS && fitUnchecked(values, sums, positions, n)) {
      addGrouped(values, targets, sums, positions, n, groupIds, groups);
    } else {
      addInLanes(values, targets, sums, positions, n, groupIds, groups);
    }
  }

  /**
   * Whether the first {@code rows} values of every sum lie in [-2^52, 2^52): the masked loop reads
   * every row of the chunk, so it checks them all.
   */
  private static boolean fitUnchecked(long[][] values, int sums, int rows) {
    for (int s = 0; s < sums; s++) {
      if (Magnitude.bits(values[s], rows) > UNCHECKED_BITS) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether the listed rows' values of every sum lie in [-2^52, 2^52): the grouped loop reads only
   * those, so a sparse selection costs its rows, not the chunk's.
   */
  private static boolean fitUnchecked(long[][] values, int sums, int[] positions, int n) {
    for (int s = 0; s < sums; s++) {
      if (Magnitude.bits(values[s], positions, n) > UNCHECKED_BITS) {
        return false;
      }
    }
    return true;
  }

  /** The masked loop of the class comment; values fit unchecked. */
  private void addMasked(long[][] values, GroupColumns.Column[] targets, int sums, int[] positions, int n, int rows,
      int[] groupIds, int groups) {
    if (masks == null) {
      masks = new long[MASKED_GROUPS][Chunk.CAPACITY];
    }
    for (int g = 0; g < groups; g++) {
      Arrays.fill(masks[g], 0, rows, 0);
    }
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      masks[groupIds[k]][k] = -1L;
    }
    long[] t = totalsBuffer(groups * sums);
    for (int s = 0; s < sums; s++) {
      long[] v = values[s];
      for (int g = 0; g < groups; g++) {
        long[] mask = masks[g];
        long sum = 0;
        for (int k = 0; k < rows; k++) {
          sum += v[k] & mask[k];
        }
        t[s * groups + g] = sum;
      }
    }
    addTotals(t, targets, sums, groups);
  }

  /** The grouped loop of the class comment; values fit unchecked. */
  private void addGrouped(long[][] values, GroupColumns.Column[] targets, int sums, int[] positions, int n,
      int[] groupIds, int groups) {
    int[] start = starts;
    Arrays.fill(start, 0, groups + 1, 0);
    for (int i = 0; i < n; i++) {
      start[groupIds[positions[i]] + 1]++;
    }
    for (int g = 0; g < groups; g++) {
      start[g + 1] += start[g];
    }
    System.arraycopy(start, 0, next, 0, groups);
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      order[next[groupIds[k]]++] = k;
    }
    long[] t = totalsBuffer(groups * sums);
    for (int s = 0; s < sums; s++) {
      long[] v = values[s];
      for (int g = 0; g < groups; g++) {
        long sum = 0;
        for (int i = start[g], end = start[g + 1]; i < end; i++) {
          sum += v[order[i]];
        }
        t[s * groups + g] = sum;
      }
    }
    addTotals(t, targets, sums, groups);
  }

  /**
   * Adds chunk sums {@code t[s * groups + g]} to the accumulators: every new total is computed
   * (exactly) before any is written, so an overflow leaves the accumulators as they were.
   */
  private static void addTotals(long[] t, GroupColumns.Column[] targets, int sums, int groups) {
    for (int s = 0; s < sums; s++) {
      for (int g = 0; g < groups; g++) {
        t[s * groups + g] = Math.addExact(targets[s].get(g), t[s * groups + g]);
      }
    }
    for (int s = 0; s < sums; s++) {
      for (int g = 0; g < groups; g++) {
        targets[s].set(g, t[s * groups + g]);
      }
    }
  }

  private long[] totalsBuffer(int size) {
    if (totals.length < size) {
      totals = new long[Math.max(size, 2 * totals.length)];
    }
    return totals;
  }

  /** The checked lanes of the class comment, falling back to {@link #addDirect} when a partial sum overflows. */
  private void addInLanes(long[][] values, GroupColumns.Column[] targets, int sums, int[] positions, int n,
      int[] groupIds, int groups) {
    int block = groups * LANES;
    if (partial.length < block * sums) {
      partial = new long[MAX_GROUPS * LANES * sums];
    }
    long[] p = partial;
    Arrays.fill(p, 0, block * sums, 0);
    try {
      // Sum by sum: each pass is a simple loop the compiler unrolls; all passes reuse the chunk's
      // group ids, which stay in L1.
      for (int s = 0; s < sums; s++) {
        long[] v = values[s];
        int offset = s * block;
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          int lane = offset + ((groupIds[k] << 2) | (i & (LANES - 1)));
          p[lane] = Math.addExact(p[lane], v[k]);
        }
      }
      // Fold the lanes and compute every new total before writing any, so that an overflow
      // leaves the accumulators untouched for the exact row-by-row retry.
      long[] t = totalsBuffer(groups * sums);
      for (int s = 0; s < sums; s++) {
        int offset = s * block;
        for (int g = 0; g < groups; g++) {
          int base = offset + (g << 2);
          t[s * groups + g] = Math.addExact(Math.addExact(p[base], p[base + 1]), Math.addExact(p[base + 2], p[base + 3]));
        }
      }
      addTotals(t, targets, sums, groups);
    } catch (ArithmeticException partialOverflow) {
      addDirect(values, targets, sums, positions, n, groupIds);
    }
  }

  /**
   * Adds straight into the accumulators, in the loop order their layout favours: one sum at a time
   * over the chunk for {@link AggregateLayout#COLUMNS} (each pass walks one array), one row at a
   * time for {@link AggregateLayout#ROWS} (a row's sums are adjacent, so one cache line serves all).
   */
  private void addDirect(long[][] values, GroupColumns.Column[] targets, int sums, int[] positions, int n,
      int[] groupIds) {
    MemorySegment slots = targets[0].slots();
    long stride = targets[0].stride();
    long[] bases = baseBuffer(sums);
    for (int s = 0; s < sums; s++) {
      bases[s] = targets[s].base();
    }
    if (stride == 1) {
      for (int s = 0; s < sums; s++) {
        long[] v = values[s];
        long base = bases[s];
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          long at = base + groupIds[k];
          slots.setAtIndex(LONG, at, Math.addExact(slots.getAtIndex(LONG, at), v[k]));
        }
      }
    } else {
      for (int i = 0; i < n; i++) {
        int k = positions[i];
        long row = groupIds[k] * stride;
        for (int s = 0; s < sums; s++) {
          long at = bases[s] + row;
          slots.setAtIndex(LONG, at, Math.addExact(slots.getAtIndex(LONG, at), values[s][k]));
        }
      }
    }
  }

  private long[] baseBuffer(int sums) {
    if (bases.length < sums) {
      bases = new long[sums];
    }
    return bases;
  }

  private static long[] filledWithOnes() {
    long[] ones = new long[Chunk.CAPACITY];
    Arrays.fill(ones, 1);
    return ones;
  }
}
