package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinMemoryException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The radix joins' cluster tables are heap arrays sized by the largest right cluster, which skew makes
 * the whole right side: they are charged to the join's budget, so an all-equal build side under a
 * budget that holds the clustered inputs but not the tables fails with a named
 * {@link JoinMemoryException}, not with the heap's {@code OutOfMemoryError}, and frees its memory.
 */
@ExtendWith(LeakCheck.class)
class SkewedClusterTablesTest {
  private static final int RIGHT = 400_000;
  private static final int LEFT = 10;

  @Test
  void skewedClusterTablesAreChargedAndATightBudgetFailsByName(EngineMemory memory) {
    for (ColumnType keyType : List.of(ColumnType.INT64, ColumnType.INT32)) { // hashed and packed tuples
      try (Table skewed = keys(memory, keyType, RIGHT, true); Table unique = keys(memory, keyType, RIGHT, false);
          Table left = keys(memory, keyType, LEFT, true)) {
        for (JoinAlgorithm algorithm : List.of(JoinAlgorithm.PHASH, JoinAlgorithm.PHASH_PLUS, JoinAlgorithm.RADIX_JOIN)) {
          for (int threads : new int[] {1, 2}) {
            String what = algorithm + " on " + keyType + " keys, " + threads + " thread(s)";
            long upfront = requiredUpfront(left, skewed, algorithm, threads);
            MemoryBudget tight = MemoryBudget.of("tight", upfront + (256 << 10)); // the inputs fit, the tables not
            try (EngineMemory limited = EngineMemory.create(tight)) {
              assertEquals(LEFT, Join.of(limited, left, unique).on("k").algorithm(algorithm).threads(threads)
                  .profile(TestProfiles.vm()).count(), what + ": unique keys fit the same budget");
              JoinMemoryException e = assertThrows(JoinMemoryException.class, () -> Join.of(limited, left, skewed)
                  .on("k").algorithm(algorithm).threads(threads).profile(TestProfiles.vm()).count(), what);
              assertTrue(e.getMessage().contains("largest right cluster, " + RIGHT + " tuples")
                  && e.getMessage().contains("tight"), e.getMessage());
            }
            assertEquals(0, tight.reservedBytes(), what + ": the failed join left memory reserved");
            MemoryBudget roomy = MemoryBudget.of("roomy", upfront + (16 << 20));
            try (EngineMemory enough = EngineMemory.create(roomy)) {
              assertEquals((long) LEFT * RIGHT, Join.of(enough, left, skewed).on("k").algorithm(algorithm)
                  .threads(threads).profile(TestProfiles.vm()).count(), what);
              assertTrue(roomy.peakBytes() > upfront, what + ": the tables were charged (peak " + roomy.peakBytes()
                  + ", inputs " + upfront + ")");
            }
          }
        }
      }
    }
  }

  /** What the join reserves before any work: the requirement a budget of one byte reports. */
  private static long requiredUpfront(Table left, Table right, JoinAlgorithm algorithm, int threads) {
    try (EngineMemory none = EngineMemory.create(MemoryBudget.of("none", 1))) {
      return assertThrows(JoinMemoryException.class, () -> Join.of(none, left, right).on("k").algorithm(algorithm)
          .threads(threads).profile(TestProfiles.vm()).count()).requiredBytes();
    }
  }

  /** {@code rows} keys, all 7 or 0, 1, 2, ... */
  private static Table keys(EngineMemory memory, ColumnType type, int rows, boolean equal) {
    try (TableBuilder builder = new TableBuilder(List.of("k"), List.of(type), memory.arrow())) {
      for (int row = 0; row < rows; row++) {
        builder.appendLong(equal ? 7 : row);
        builder.endRow();
      }
      return builder.build();
    }
  }
}
