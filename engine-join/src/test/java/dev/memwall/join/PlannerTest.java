package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.partition.RadixPlan;
import dev.memwall.join.algorithm.ClusterJoin;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.planner.CostModel;
import dev.memwall.join.planner.JoinPlan;
import dev.memwall.join.planner.Planner;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlannerTest {
  private static final double C = 8_000_000;

  @Test
  void bitsPerPassFollowTheTlb() {
    assertEquals(5, new CostModel(TestProfiles.tiny()).maxBitsPerPass());
    assertEquals(11, new CostModel(TestProfiles.vm()).maxBitsPerPass());
  }

  @Test
  void onASeedLikeMachineTwoPassesBeatOneBeyondTheTlb() {
    CostModel model = new CostModel(TestProfiles.tiny());
    // Fig. 11: while the open clusters' pages fit the TLB one pass is best, beyond it two passes are
    assertTrue(model.cluster(C, RadixPlan.even(5, 1), true) < model.cluster(C, RadixPlan.even(5, 2), true));
    assertTrue(model.cluster(C, RadixPlan.even(12, 2), true) < model.cluster(C, RadixPlan.even(12, 1), true));
  }

  @Test
  void onTheVmElevenBitsStillFitOnePass() {
    CostModel model = new CostModel(TestProfiles.vm());
    assertTrue(model.cluster(C, RadixPlan.even(11, 1), true) < model.cluster(C, RadixPlan.even(11, 2), true));
  }

  @Test
  void onHugePagesOnePassStaysCheapestUpToSixteenBits() {
    // Figs. 11-13 as measured on the Xeon VM: the clusters' buffers on 2 MiB pages share a few dozen
    // pages, so a second pass only adds its copy; the same machine without huge pages pays the TLB
    CostModel huge = new CostModel(TestProfiles.sharedL3(Double.NaN));
    for (int bits : new int[] {12, 14, 16}) {
      assertTrue(huge.cluster(C, RadixPlan.even(bits, 1), false) < huge.cluster(C, RadixPlan.even(bits, 2), false),
          bits + " bits");
    }
    CostModel base = new CostModel(TestProfiles.withoutHugePages(TestProfiles.sharedL3(Double.NaN)));
    assertTrue(base.cluster(C, RadixPlan.even(16, 1), false) > huge.cluster(C, RadixPlan.even(16, 1), false));
  }

  @Test
  void writeCombiningPaysOnlyWhereTheOpenClustersOutnumberTheTlb() {
    RadixPlan twelveBits = RadixPlan.even(12, 1);
    CostModel huge = new CostModel(TestProfiles.sharedL3(Double.NaN));
    assertTrue(huge.cluster(C, twelveBits, true) > huge.cluster(C, twelveBits, false), "huge pages: the copy costs");
    CostModel seedLike = new CostModel(TestProfiles.tiny());
    assertTrue(seedLike.cluster(C, twelveBits, true) < seedLike.cluster(C, twelveBits, false),
        "a 64-entry TLB over 4 KiB pages: the buffers save a TLB miss per tuple");
  }

  @Test
  void partitioningPaysForLargeInputsOnASeedLikeMachine() {
    Planner planner = new Planner(TestProfiles.tiny());
    JoinPlan simple = planner.plan(JoinAlgorithm.SIMPLE_HASH, 8_000_000, 8_000_000, null, true);
    JoinPlan plus = planner.plan(JoinAlgorithm.PHASH_PLUS, 8_000_000, 8_000_000, null, true);
    double ratio = simple.predicted().totalNanos() / plus.predicted().totalNanos();
    assertTrue(ratio > 2, "simple / phash+ predicted " + ratio);
    assertTrue(plus.radix().bits() > 6, plus.describe());
    for (int p = 0; p < plus.radix().passes(); p++) {
      assertTrue(plus.radix().bitsOfPass(p) <= 7, plus.describe());
    }
  }

  @Test
  void phashPlusJoinPhaseIsCheaperThanPhashForLargeClusters() {
    CostModel model = new CostModel(TestProfiles.tiny());
    assertTrue(model.clusterJoin(C, C, 8, ClusterJoin.Kind.PHASH_PLUS) < model.clusterJoin(C, C, 8, ClusterJoin.Kind.PHASH));
  }

  @Test
  void autoPicksTheCheapestCandidate() {
    JoinPlan plan = new Planner(TestProfiles.vm()).plan(JoinAlgorithm.AUTO, 1_000_000, 1_000_000, null, true);
    assertEquals(plan.alternatives().getFirst().algorithm(), plan.algorithm());
    for (JoinPlan.Candidate c : plan.alternatives()) {
      assertTrue(plan.predicted().totalNanos() <= c.cost().totalNanos());
    }
  }

  @Test
  void autoKeepsBuildSidesThatFitTheLastLevelCacheUnpartitioned() {
    Planner planner = new Planner(TestProfiles.vm());
    CostModel model = planner.model();
    // 20,000 build tuples: a 1 MiB table, within the VM's 2 MiB effective L3
    assertTrue(model.hashTableBytes(20_000) <= model.lastLevelCacheBytes());
    JoinPlan small = planner.plan(JoinAlgorithm.AUTO, 6_000_000, 20_000, null, true);
    assertFalse(small.algorithm().clusters(), small.describe());
    assertEquals(small.alternatives().getFirst().algorithm(), small.algorithm());
    // it prices the clustering algorithms as one cluster only; a named algorithm still sees every radix plan
    assertTrue(small.singleCluster(), small.describe());
    for (JoinPlan.Candidate c : small.alternatives()) {
      assertTrue(c.algorithm().clusters() ? c.radix().bits() == 0 : c.radix() == null, small.describe());
    }
    assertTrue(small.describe().contains("costed as one cluster"), small.describe());
    JoinPlan named = planner.plan(JoinAlgorithm.OPEN_ADDRESSING, 6_000_000, 20_000, null, true);
    assertFalse(named.singleCluster(), named.describe());
    assertTrue(named.alternatives().stream().anyMatch(c -> c.algorithm().clusters() && c.radix().bits() > 0),
        named.describe());
    // 1,000,000 build tuples spill it: the cost model's cheapest candidate, whatever it is
    assertTrue(model.hashTableBytes(1_000_000) > model.lastLevelCacheBytes());
    JoinPlan large = planner.plan(JoinAlgorithm.AUTO, 6_000_000, 1_000_000, null, true);
    assertEquals(large.alternatives().getFirst().algorithm(), large.algorithm());
  }

  @Test
  void aLastLevelSlowerThanHalfAMissCountsOnlyAsFarAsTheCurveStaysFast() {
    for (double l3Nanos : new double[] {Double.NaN, 167.8}) {
      CostModel model = new CostModel(TestProfiles.sharedL3(l3Nanos));
      assertEquals(16 << 20, model.lastLevelCacheBytes(), "L3 latency " + l3Nanos);
    }
    // measured fast, it is trusted at its sysfs size
    assertEquals(480 << 20, new CostModel(TestProfiles.sharedL3(30)).lastLevelCacheBytes());
  }

  @Test
  void onTheSharedL3VmCacheSizedBuildsStayUnpartitionedAndHugeOnesArePartitioned() {
    // Table 2 as measured there: open addressing fastest up to 1M tuples per side, phash+ at 8M
    Planner planner = new Planner(TestProfiles.sharedL3(Double.NaN));
    for (long c : new long[] {125_000, 1_000_000}) {
      JoinPlan plan = planner.plan(JoinAlgorithm.AUTO, c, c, null, false);
      assertEquals(JoinAlgorithm.OPEN_ADDRESSING, plan.algorithm(), plan.describe());
    }
    JoinPlan large = planner.plan(JoinAlgorithm.AUTO, 8_000_000, 8_000_000, null, false);
    assertTrue(large.algorithm().clusters(), large.describe());
  }
}
