package dev.memwall.core.operator;

import dev.memwall.core.expr.Chunk;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Adds a chunk's values of several sums (and the row count) into per-group accumulators.
 *
 * <p>With few groups, consecutive rows keep hitting the same accumulator and each addition waits
 * for the previous store (a loop-carried dependency through memory). Up to {@link #MAX_GROUPS}
 * groups, consecutive rows are therefore spread over {@link #LANES} partial sums per group, which
 * makes the chains independent so they overlap; the lanes are folded into the accumulators once
 * per chunk.
 *
 * <p>Exact: overflow throws {@link ArithmeticException}. If a partial sum overflows although a
 * group's total might not, the chunk is redone without lanes, so only a true overflow throws.
 *
 * <p>Thread safety: none; one per aggregation worker.
 */
final class LaneSums {
  /** Groups up to which lanes are used. */
  static final int MAX_GROUPS = 256;
  /** A value vector of ones, for counting rows. */
  static final long[] ONES = filledWithOnes();

  private static final int LANES = 4;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

  private long[] partial = new long[0];
  private long[] totals = new long[0];
  private long[] bases = new long[0];

  /**
   * For each sum {@code s < sums} and each listed row {@code k}, adds {@code values[s][k]} to
   * group {@code groupIds[k]}'s slot of {@code targets[s]} (all columns of one {@link GroupColumns}).
   */
  void add(long[][] values, GroupColumns.Column[] targets, int sums, int[] positions, int n, int[] groupIds,
      int groups) {
    if (groups > MAX_GROUPS) {
      addDirect(values, targets, sums, positions, n, groupIds);
      return;
    }
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
      long[] t = totals.length >= block * sums / LANES ? totals : (totals = new long[MAX_GROUPS * sums]);
      for (int s = 0; s < sums; s++) {
        int offset = s * block;
        for (int g = 0; g < groups; g++) {
          int base = offset + (g << 2);
          long sum = Math.addExact(Math.addExact(p[base], p[base + 1]), Math.addExact(p[base + 2], p[base + 3]));
          t[s * groups + g] = Math.addExact(targets[s].get(g), sum);
        }
      }
      for (int s = 0; s < sums; s++) {
        for (int g = 0; g < groups; g++) {
          targets[s].set(g, t[s * groups + g]);
        }
      }
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
