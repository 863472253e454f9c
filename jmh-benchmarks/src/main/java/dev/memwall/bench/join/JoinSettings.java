package dev.memwall.bench.join;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.partition.RadixPlan;
import dev.memwall.hw.CalibratedProfile;
import dev.memwall.join.Join;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.planner.CostModel;

/**
 * The named algorithm settings of seed 000's Table 2, computed from this machine's profile:
 * "phash TLB" clusters so that one inner cluster with its table spans at most the TLB's reach,
 * "radix 8" clusters to about 8 tuples per cluster, passes as the TLB allows.
 */
public enum JoinSettings {
  SIMPLE_HASH, SORT_MERGE, PHASH_TLB, RADIX_8, PHASH_PLUS_TLB, OPEN_ADDRESSING, OPEN_ADDRESSING_PLAIN, PLANNER;

  /** Bytes an inner tuple occupies in a cluster with its hash table: 12 of tuple, 4 of chain, about 4 of bucket. */
  static final int CLUSTER_BYTES_PER_TUPLE = 20;

  /** The calibrated profile (measured once and stored, as the command line does), also {@link MachineProfile#current()} from now on. */
  public static MachineProfile profile() {
    return CalibratedProfile.install(null);
  }

  /**
   * Configures {@code join} for this setting with {@code tuples} per side.
   *
   * @throws IllegalStateException for a TLB setting on a profile whose calibration found no TLB size
   *     (0 entries), which would otherwise size clusters for a reach of 0 bytes: the most bits, one a pass
   */
  Join apply(Join join, MachineProfile profile, long tuples) {
    CostModel model = new CostModel(profile);
    long tlbReach = profile.tlb().entries() * profile.pageBytes();
    if ((this == PHASH_TLB || this == PHASH_PLUS_TLB) && tlbReach <= 0) {
      throw new IllegalStateException(this + " sizes clusters to the TLB's reach, and this machine's profile has no "
          + "TLB size (its calibration found no knee in the TLB curve, as on some VMs)");
    }
    return switch (this) {
      case SIMPLE_HASH -> join.algorithm(JoinAlgorithm.SIMPLE_HASH);
      case SORT_MERGE -> join.algorithm(JoinAlgorithm.SORT_MERGE);
      case OPEN_ADDRESSING -> join.algorithm(JoinAlgorithm.OPEN_ADDRESSING);
      case OPEN_ADDRESSING_PLAIN -> join.algorithm(JoinAlgorithm.OPEN_ADDRESSING).probeGroup(1);
      case PHASH_TLB -> join.algorithm(JoinAlgorithm.PHASH)
          .radix(RadixPlan.bounded(bitsFor((double) tuples * CLUSTER_BYTES_PER_TUPLE / tlbReach), model.maxBitsPerPass()));
      case PHASH_PLUS_TLB -> join.algorithm(JoinAlgorithm.PHASH_PLUS)
          .radix(RadixPlan.bounded(bitsFor((double) tuples * CLUSTER_BYTES_PER_TUPLE / tlbReach), model.maxBitsPerPass()));
      case RADIX_8 -> join.algorithm(JoinAlgorithm.RADIX_JOIN)
          .radix(RadixPlan.bounded(bitsFor(tuples / 8.0), model.maxBitsPerPass()));
      case PLANNER -> join.algorithm(JoinAlgorithm.AUTO);
    };
  }

  private static int bitsFor(double clusters) {
    return (int) Math.min(RadixPlan.MAX_BITS, Math.max(0, Math.ceil(Math.log(clusters) / Math.log(2))));
  }
}
