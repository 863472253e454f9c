package dev.memwall.join.prefetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.machine.CacheLevel;
import dev.memwall.core.machine.MachineProfile;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrefetchTuningTest {
  @Test
  void overridesReplaceOnlyPositiveValues() {
    PrefetchTuning tuned = new PrefetchTuning(46, 3);
    assertEquals(tuned, tuned.overriddenBy(0, 0));
    assertEquals(new PrefetchTuning(8, 3), tuned.overriddenBy(8, 0));
    assertEquals(new PrefetchTuning(46, 16), tuned.overriddenBy(0, 16));
    assertThrows(IllegalArgumentException.class, () -> tuned.overriddenBy(PrefetchTuning.MAX_GROUP + 1, 0));
  }

  @Test
  void groupSizeIsTheSmallestSatisfyingEquation41() {
    PrefetchTuning.StageCosts costs = new PrefetchTuning.StageCosts(10, 5, 10);
    // T1 = 200, Tnext = 20: min(C0 = 10, max(5, 20) = 20) = 10 -> (G - 1) 10 >= 200 -> G = 21
    int g = PrefetchTuning.groupSize(200, 20, costs);
    assertEquals(21, g);
    assertTrue((g - 1) * 10.0 >= 200 && (g - 2) * 10.0 < 200, "smallest");
    // a slow pipelined miss makes Tnext the bound: min(10, max(5, 40)) = 10 still; with C0 = 50: 40
    assertEquals(6, PrefetchTuning.groupSize(200, 40, new PrefetchTuning.StageCosts(50, 5, 10)));
  }

  @Test
  void distanceIsTheSmallestSatisfyingEquation42() {
    PrefetchTuning.StageCosts costs = new PrefetchTuning.StageCosts(10, 5, 10);
    // row = max(10 + 10, 20) + 2 max(5, 20) = 60 -> D 60 >= 200 -> D = 4
    assertEquals(4, PrefetchTuning.distance(200, 20, costs, 3));
    assertEquals(1, PrefetchTuning.distance(50, 20, costs, 3));
  }

  @Test
  void ringIsAPowerOfTwoOfAtLeastKdPlusOne() {
    for (int k = 1; k <= 4; k++) {
      for (int d = 1; d <= 64; d++) {
        int ring = PrefetchTuning.ringSize(k, d);
        assertEquals(1, Integer.bitCount(ring));
        assertTrue(ring >= k * d + 1 && ring / 2 < k * d + 1, k + " " + d + " " + ring);
      }
    }
  }

  @Test
  void profileGivesLargerGroupsForSlowerMemory() {
    PrefetchTuning fast = PrefetchTuning.from(profile(100, 10));
    PrefetchTuning slow = PrefetchTuning.from(profile(400, 10));
    assertTrue(slow.group() > fast.group() && slow.distance() >= fast.distance(), fast + " vs " + slow);
    assertThrows(IllegalArgumentException.class, () -> new PrefetchTuning(0, 1));
    assertThrows(IllegalArgumentException.class, () -> new PrefetchTuning(1, 0));
  }

  @Test
  void thePartitionLoopHasFewerReferencesSoTheSameGroupAndANoShorterDistance() {
    MachineProfile profile = profile(300, 5);
    PrefetchTuning probe = PrefetchTuning.from(profile);
    PrefetchTuning partition = PrefetchTuning.forPartitioning(profile);
    assertEquals(probe.group(), partition.group());
    assertTrue(partition.distance() >= probe.distance(), probe + " vs " + partition);
  }

  private static MachineProfile profile(double t1, double tNext) {
    return new MachineProfile("synthetic", 2,
        List.of(new MachineProfile.MeasuredCache(new CacheLevel(1, "Data", 32 << 10, 64, 8), 32 << 10, 1.5)),
        t1, tNext, t1 / tNext, List.of(), new MachineProfile.Bandwidth(20, 20, 20, 20, 20, 20), 4096,
        new MachineProfile.Tlb(64, 10, 10, List.of()));
  }
}
