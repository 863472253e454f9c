package dev.memwall.join.prefetch;

import dev.memwall.core.machine.MachineProfile;

/**
 * The group size G and prefetch distance D of the prefetching build and probe, chosen as the
 * smallest values that hide every miss by the thesis's sufficient conditions (seed 002, eq. 4.1
 * and 4.2), for {@code k} dependent references per tuple:
 *
 * <pre>
 *   (G - 1) C_0 >= T1   and   (G - 1) max(C_l, Tnext) >= T1   for l = 1..k
 *   D (max(C_0 + C_k, Tnext) + sum_{l=1}^{k-1} max(C_l, Tnext)) >= T1
 * </pre>
 *
 * T1 (full miss) and Tnext (pipelined miss) come from the machine profile; the stage costs C_l are
 * estimated from its L1 hit latency (a stage is a handful of dependent L1-speed instructions), or
 * given. Both results can be overridden by the caller ({@link dev.memwall.join.Join#prefetch}).
 *
 * @param group G, at least 1
 * @param distance D, at least 1
 */
public record PrefetchTuning(int group, int distance) {
  /** The most tuples per group (state arrays stay in L1). */
  public static final int MAX_GROUP = 1024;
  /** The largest distance. */
  public static final int MAX_DISTANCE = 256;
  /** Dependent references of a probe: bucket header, cell array, build tuple. */
  public static final int PROBE_REFERENCES = 3;
  /**
   * Dependent references of a partition-phase record ({@link PrefetchingPartitioner}): the
   * partition's fill position, the destination line.
   */
  public static final int PARTITION_REFERENCES = 2;

  public PrefetchTuning {
    if (group < 1 || group > MAX_GROUP) {
      throw new IllegalArgumentException("prefetch group must be in 1.." + MAX_GROUP + ", got " + group);
    }
    if (distance < 1 || distance > MAX_DISTANCE) {
      throw new IllegalArgumentException("prefetch distance must be in 1.." + MAX_DISTANCE + ", got " + distance);
    }
  }

  /**
   * Estimated stage costs in nanoseconds.
   *
   * @param code0 C_0: reading the tuple and computing its bucket
   * @param middle C_l for l = 1..k-1: visiting a header or cell array and computing the next address
   * @param last C_k: comparing keys and producing the output
   */
  public record StageCosts(double code0, double middle, double last) {
    public StageCosts {
      if (!(code0 > 0 && middle > 0 && last > 0)) {
        throw new IllegalArgumentException("stage costs must be positive: " + code0 + ", " + middle + ", " + last);
      }
    }

    /** From the profile's L1 hit latency: C_0 = 3, C_l = 2, C_k = 3 L1 hits (1 ns each where unmeasured). */
    public static StageCosts estimate(MachineProfile profile) {
      double l1 = profile.caches().isEmpty() ? Double.NaN : profile.caches().getFirst().hitLatencyNanos();
      if (!(l1 > 0)) {
        l1 = 1;
      }
      return new StageCosts(3 * l1, 2 * l1, 3 * l1);
    }
  }

  /** This tuning with {@code group} and {@code distance} where they are positive (0 keeps this one's). */
  public PrefetchTuning overriddenBy(int group, int distance) {
    return new PrefetchTuning(group > 0 ? group : this.group, distance > 0 ? distance : this.distance);
  }

  /** G and D for {@code profile}'s T1 and Tnext, with estimated stage costs, for probes ({@link #PROBE_REFERENCES}). */
  public static PrefetchTuning from(MachineProfile profile) {
    return of(profile.missLatencyNanos(), profile.pipelinedMissNanos(), StageCosts.estimate(profile),
        PROBE_REFERENCES);
  }

  /** G and D for {@code profile}'s T1 and Tnext, with estimated stage costs, for the partition loop ({@link #PARTITION_REFERENCES}). */
  public static PrefetchTuning forPartitioning(MachineProfile profile) {
    return of(profile.missLatencyNanos(), profile.pipelinedMissNanos(), StageCosts.estimate(profile),
        PARTITION_REFERENCES);
  }

  /** The smallest G and D satisfying eq. 4.1 and 4.2 (clamped to their ranges). */
  public static PrefetchTuning of(double t1, double tNext, StageCosts costs, int references) {
    if (!(t1 > 0) || !(tNext > 0) || references < 1) {
      throw new IllegalArgumentException("T1 and Tnext must be positive and k at least 1: " + t1 + ", " + tNext
          + ", " + references);
    }
    return new PrefetchTuning(groupSize(t1, tNext, costs), distance(t1, tNext, costs, references));
  }

  /** Eq. 4.1: the smallest G with (G - 1) min(C_0, max(C_l, Tnext)) >= T1. */
  static int groupSize(double t1, double tNext, StageCosts costs) {
    double slowestHiding = Math.min(costs.code0(), Math.min(Math.max(costs.middle(), tNext), Math.max(costs.last(), tNext)));
    return (int) Math.min(MAX_GROUP, 1 + (long) Math.ceil(t1 / slowestHiding - 1e-9));
  }

  /** Eq. 4.2: the smallest D with D (max(C_0 + C_k, Tnext) + (k - 1) max(C_l, Tnext)) >= T1. */
  static int distance(double t1, double tNext, StageCosts costs, int references) {
    double row = Math.max(costs.code0() + costs.last(), tNext) + (references - 1) * Math.max(costs.middle(), tNext);
    return (int) Math.max(1, Math.min(MAX_DISTANCE, (long) Math.ceil(t1 / row - 1e-9)));
  }

  /** The pipelined state ring for {@code stages} stages after stage 0: a power of two of at least kD + 1. */
  public static int ringSize(int stages, int distance) {
    int needed = stages * distance + 1;
    return Integer.highestOneBit(needed - 1) << 1;
  }
}
