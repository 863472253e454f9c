package dev.memwall.core.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FillEstimateTest {
  /**
   * Rows drawn uniformly from a domain: the estimate from the groups they made is near the domain's
   * size, within four standard errors (about one over the root of the repeats, Poisson-like).
   */
  @Test
  void uniformDrawsTellTheDomain() {
    Random random = new Random(3);
    for (int domain : new int[] {20_000, 100_000, 1_000_000}) {
      for (double share : new double[] {0.2, 0.5, 3}) {
        int rows = (int) (domain * share);
        Set<Integer> seen = new HashSet<>();
        for (int r = 0; r < rows; r++) {
          seen.add(random.nextInt(domain));
        }
        double estimate = FillEstimate.distinctKeys(rows, seen.size());
        double error = 4 / Math.sqrt(rows - seen.size());
        assertTrue(error < 0.25, "enough repeats to judge: " + error);
        assertEquals(domain, estimate, domain * error, domain + " keys, " + rows + " rows, " + seen.size() + " groups");
      }
    }
  }

  @Test
  void noRepeatSaysOnlyMany() {
    assertEquals(Double.POSITIVE_INFINITY, FillEstimate.distinctKeys(4096, 4096));
    assertEquals(Double.POSITIVE_INFINITY, FillEstimate.distinctKeys(0, 0));
    assertEquals(0, FillEstimate.distinctKeys(10, 0));
  }

  /** A few hot keys: the estimate is low, as the class says; one key repeated is one key. */
  @Test
  void skewLowersTheEstimate() {
    assertEquals(1, FillEstimate.distinctKeys(1_000, 1), 0.5);
    double estimate = FillEstimate.distinctKeys(20_000, 10_001); // half the rows one key, half distinct
    assertTrue(estimate < 20_000, "estimate " + estimate);
  }

  @Test
  void expectedGroupsInvertsTheEstimate() {
    for (long rows : new long[] {100, 10_000, 10_000_000}) {
      for (long groups : new long[] {1, rows / 3, rows - 1}) {
        double distinct = FillEstimate.distinctKeys(rows, groups);
        assertEquals(groups, FillEstimate.expectedGroups(rows, distinct), Math.max(0.5, groups * 1e-6), rows + " " + groups);
      }
    }
    assertEquals(0, FillEstimate.expectedGroups(100, 0));
  }
}
