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

  /**
   * For each sum {@code s < sums} and each listed row {@code k}, adds {@code values[s][k]} to
   * {@code accumulators[s]} at index {@code groupIds[k]}.
   */
  void add(long[][] values, MemorySegment[] accumulators, int sums, int[] positions, int n, int[] groupIds,
      int groups) {
    if (groups > MAX_GROUPS) {
      addDirect(values, accumulators, sums, positions, n, groupIds);
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
        MemorySegment accumulator = accumulators[s];
        int offset = s * block;
        for (int g = 0; g < groups; g++) {
          int base = offset + (g << 2);
          long sum = Math.addExact(Math.addExact(p[base], p[base + 1]), Math.addExact(p[base + 2], p[base + 3]));
          t[s * groups + g] = Math.addExact(accumulator.getAtIndex(LONG, g), sum);
        }
      }
      for (int s = 0; s < sums; s++) {
        MemorySegment accumulator = accumulators[s];
        for (int g = 0; g < groups; g++) {
          accumulator.setAtIndex(LONG, g, t[s * groups + g]);
        }
      }
    } catch (ArithmeticException partialOverflow) {
      addDirect(values, accumulators, sums, positions, n, groupIds);
    }
  }

  private static void addDirect(long[][] values, MemorySegment[] accumulators, int sums, int[] positions, int n,
      int[] groupIds) {
    for (int s = 0; s < sums; s++) {
      long[] v = values[s];
      MemorySegment accumulator = accumulators[s];
      for (int i = 0; i < n; i++) {
        int k = positions[i];
        int g = groupIds[k];
        accumulator.setAtIndex(LONG, g, Math.addExact(accumulator.getAtIndex(LONG, g), v[k]));
      }
    }
  }

  private static long[] filledWithOnes() {
    long[] ones = new long[Chunk.CAPACITY];
    Arrays.fill(ones, 1);
    return ones;
  }
}
