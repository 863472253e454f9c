package dev.memwall.core.operator;

import dev.memwall.core.expr.Chunk;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Adds a chunk's values into per-group sums when there are few groups. With a handful of groups,
 * consecutive rows keep hitting the same accumulator, and each addition waits for the previous
 * store (a loop-carried dependency through memory, ~5 cycles). Spreading consecutive rows over
 * {@link #LANES} partial sums per group makes the chains independent so they overlap; the lanes
 * are folded into the accumulators once per chunk.
 *
 * <p>Exact: overflow throws {@link ArithmeticException}. If a partial sum overflows although the
 * group's total might not, the chunk is redone without lanes, so only a true overflow throws.
 *
 * <p>Thread safety: none; one per accumulator per worker.
 */
final class LaneSums {
  /** Groups up to which lanes are used. */
  static final int MAX_GROUPS = 256;
  private static final int LANES = 4;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

  private final long[] lanes = new long[MAX_GROUPS * LANES];

  /**
   * Adds {@code values[k]} (or 1 when {@code values} is null) for each listed row into
   * {@code accumulators[groupIds[k]]}.
   */
  void add(long[] values, int[] positions, int n, int[] groupIds, int groups, MemorySegment accumulators) {
    if (groups > MAX_GROUPS) {
      addDirect(values, positions, n, groupIds, accumulators);
      return;
    }
    long[] partial = lanes;
    java.util.Arrays.fill(partial, 0, groups * LANES, 0);
    try {
      if (values == null) {
        for (int i = 0; i < n; i++) {
          partial[(groupIds[positions[i]] << 2) | (i & (LANES - 1))]++;
        }
      } else {
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          int lane = (groupIds[k] << 2) | (i & (LANES - 1));
          partial[lane] = Math.addExact(partial[lane], values[k]);
        }
      }
      for (int g = 0; g < groups; g++) {
        int base = g * LANES;
        long sum = Math.addExact(Math.addExact(partial[base], partial[base + 1]),
            Math.addExact(partial[base + 2], partial[base + 3]));
        if (sum != 0) {
          accumulators.setAtIndex(LONG, g, Math.addExact(accumulators.getAtIndex(LONG, g), sum));
        }
      }
    } catch (ArithmeticException partialOverflow) {
      addDirect(values, positions, n, groupIds, accumulators);
    }
  }

  private static void addDirect(long[] values, int[] positions, int n, int[] groupIds, MemorySegment accumulators) {
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      int g = groupIds[k];
      accumulators.setAtIndex(LONG, g, Math.addExact(accumulators.getAtIndex(LONG, g), values == null ? 1 : values[k]));
    }
  }

  static {
    if (Chunk.CAPACITY <= 0) {
      throw new AssertionError();
    }
  }
}
