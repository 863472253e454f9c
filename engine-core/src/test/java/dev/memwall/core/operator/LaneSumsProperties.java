package dev.memwall.core.operator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.math.BigInteger;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link LaneSums} against row-by-row exact addition, over every loop it chooses: group counts on
 * both sides of {@link LaneSums#MASKED_GROUPS} and up to {@link LaneSums#MAX_GROUPS} and beyond,
 * values that fit the unchecked loops and values that do not (partial sums that overflow while the
 * totals fit, and at the type's limits), dense, sparse and empty selections, with junk in the
 * unselected rows, over several chunks into the same accumulators; in both aggregate layouts.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class LaneSumsProperties {
  /** The values' range. */
  enum Magnitude { SMALL, UNCHECKED_LIMIT, LARGE_CANCELLING, TYPE_LIMITS }

  @Property(tries = 300)
  void addsAsRowByRowExactAdditionDoes(@ForAll long seed, @ForAll @IntRange(min = 1, max = 300) int groups,
      @ForAll @IntRange(min = 1, max = 6) int sums, @ForAll Magnitude magnitude, @ForAll AggregateLayout layout,
      EngineMemory memory) {
    Random random = new Random(seed);
    try (GroupColumns columns = new GroupColumns(memory, sums, groups, layout)) {
      GroupColumns.Column[] targets = new GroupColumns.Column[sums];
      for (int s = 0; s < sums; s++) {
        targets[s] = columns.claim();
      }
      columns.ensureCapacity(groups - 1);
      long[][] expected = new long[sums][groups];
      LaneSums laneSums = new LaneSums();
      for (int chunk = 0; chunk < 4; chunk++) {
        int rows = 1 + random.nextInt(Chunk.CAPACITY);
        int[] groupIds = new int[Chunk.CAPACITY];
        int[] positions = new int[Chunk.CAPACITY];
        int n = select(random, rows, positions);
        long[][] values = new long[sums][Chunk.CAPACITY];
        for (int s = 0; s < sums; s++) {
          for (int k = 0; k < rows; k++) {
            values[s][k] = value(random, magnitude);
          }
        }
        for (int k = 0; k < rows; k++) {
          groupIds[k] = random.nextBoolean() ? random.nextInt(Math.min(groups, 3)) : random.nextInt(groups);
        }
        if (trulyOverflows(expected, values, positions, n, groupIds, sums)) {
          assertThrows(ArithmeticException.class,
              () -> laneSums.add(values, targets, sums, positions, n, rows, groupIds, groups));
          return; // the accumulators are not specified after an overflow
        }
        try {
          laneSums.add(values, targets, sums, positions, n, rows, groupIds, groups);
        } catch (ArithmeticException e) {
          // allowed only where adding row by row overflows on the way, although the totals fit
          assertTrue(overflowsInRowOrder(expected, values, positions, n, groupIds, sums), "overflow where none is");
          return;
        }
        for (int s = 0; s < sums; s++) {
          expected[s] = exactTotals(expected[s], values[s], positions, n, groupIds);
          long[] actual = new long[groups];
          for (int g = 0; g < groups; g++) {
            actual[g] = targets[s].get(g);
          }
          assertArrayEquals(expected[s], actual, "sum " + s + " after chunk " + chunk);
        }
      }
    }
  }

  /** A selection of the chunk's rows into {@code positions}: all, a random share, or none; returns how many. */
  private static int select(Random random, int rows, int[] positions) {
    int n = 0;
    int keepOneIn = switch (random.nextInt(4)) {
      case 0 -> 1;
      case 1 -> 2;
      case 2 -> 50;
      default -> Integer.MAX_VALUE;
    };
    for (int k = 0; k < rows; k++) {
      if (keepOneIn == 1 || (keepOneIn != Integer.MAX_VALUE && random.nextInt(keepOneIn) == 0)) {
        positions[n++] = k;
      }
    }
    return n;
  }

  private static long value(Random random, Magnitude magnitude) {
    return switch (magnitude) {
      case SMALL -> random.nextInt(2_000_001) - 1_000_000;
      case UNCHECKED_LIMIT -> random.nextBoolean() ? (1L << 52) - 1 - random.nextInt(3) : -(1L << 52) + random.nextInt(3);
      case LARGE_CANCELLING -> random.nextBoolean() ? Long.MAX_VALUE / 3 : -(Long.MAX_VALUE / 3);
      case TYPE_LIMITS -> switch (random.nextInt(4)) {
        case 0 -> Long.MAX_VALUE;
        case 1 -> Long.MIN_VALUE;
        case 2 -> 1L << 52;
        default -> random.nextLong();
      };
    };
  }

  private static long[] exactTotals(long[] before, long[] values, int[] positions, int n, int[] groupIds) {
    BigInteger[] totals = new BigInteger[before.length];
    for (int g = 0; g < before.length; g++) {
      totals[g] = BigInteger.valueOf(before[g]);
    }
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      totals[groupIds[k]] = totals[groupIds[k]].add(BigInteger.valueOf(values[k]));
    }
    long[] exact = new long[before.length];
    for (int g = 0; g < before.length; g++) {
      exact[g] = totals[g].longValueExact();
    }
    return exact;
  }

  /** Whether some group's exact total of some sum leaves the long range. */
  private static boolean trulyOverflows(long[][] before, long[][] values, int[] positions, int n, int[] groupIds,
      int sums) {
    for (int s = 0; s < sums; s++) {
      try {
        exactTotals(before[s], values[s], positions, n, groupIds);
      } catch (ArithmeticException e) {
        return true;
      }
    }
    return false;
  }

  /** Whether adding the rows one by one, in row order, overflows some running total. */
  private static boolean overflowsInRowOrder(long[][] before, long[][] values, int[] positions, int n,
      int[] groupIds, int sums) {
    for (int s = 0; s < sums; s++) {
      long[] running = before[s].clone();
      for (int i = 0; i < n; i++) {
        int k = positions[i];
        try {
          running[groupIds[k]] = Math.addExact(running[groupIds[k]], values[s][k]);
        } catch (ArithmeticException e) {
          return true;
        }
      }
    }
    return false;
  }
}
