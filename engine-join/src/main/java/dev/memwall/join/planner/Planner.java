package dev.memwall.join.planner;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.partition.RadixPlan;
import dev.memwall.join.common.JoinAlgorithm;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * Chooses how to run a join by cost (the array join, {@link JoinAlgorithm#DENSE_KEYS}, is chosen by
 * its keys before a planner is asked): for {@link JoinAlgorithm#AUTO}, the non-partitioned join with the
 * lowest cost when the build side's hash table fits the last-level cache, else the algorithm and
 * radix plan with the lowest cost under {@link CostModel}, which prices the non-partitioned joins
 * by how skewed a sample of the probe keys is ({@link ProbeSkew}); for a named algorithm, that
 * algorithm with its best radix plan (or the caller's plan, if given). A plan lists the costed
 * alternatives; AUTO leaves the partitioned ones out when the table fits the last-level cache, as it
 * would not choose them there.
 *
 * <p>Thread safety: immutable.
 */
public final class Planner {
  /** No clustering pass: the whole input is one cluster. */
  private static final RadixPlan ONE_CLUSTER = RadixPlan.even(0, 0);
  private final CostModel model;

  /** A planner for joins over any key (the radix algorithms' tuples {@link CostModel.Layout#HASHED}). */
  public Planner(MachineProfile profile) {
    this(profile, CostModel.Layout.HASHED);
  }

  /** A planner for joins whose radix algorithms lay their tuples out as {@code layout}. */
  public Planner(MachineProfile profile, CostModel.Layout layout) {
    this.model = new CostModel(profile, layout);
  }

  public CostModel model() {
    return model;
  }

  /** The plan for joining {@code leftRows} with {@code rightRows}, the probe keys taken as uniform. */
  public JoinPlan plan(JoinAlgorithm requested, long leftRows, long rightRows, RadixPlan radix, boolean writeCombining) {
    return plan(requested, leftRows, rightRows, radix, writeCombining, () -> ProbeSkew.UNIFORM);
  }

  /**
   * The plan for joining {@code leftRows} with {@code rightRows}.
   *
   * @param requested the algorithm asked for, or AUTO
   * @param radix the caller's radix plan, or null to let the model choose
   * @param probeSkew samples the left side's keys; called only when AUTO chooses between the
   *     non-partitioned and the partitioned joins (the build side's table does not fit the last
   *     cache), the one choice that skew can change
   */
  public JoinPlan plan(JoinAlgorithm requested, long leftRows, long rightRows, RadixPlan radix, boolean writeCombining,
      Supplier<ProbeSkew> probeSkew) {
    double left = Math.max(1, leftRows);
    double right = Math.max(1, rightRows);
    boolean auto = requested == JoinAlgorithm.AUTO;
    // Radix clustering exists to make the hash table of each cluster fit the cache (seed 000); when
    // the whole build side's table already fits the last-level cache, more clusters only add passes
    // over both inputs and scatter the result pairs (the probe side's rows come out cluster by
    // cluster, so gathering their columns afterwards is random access instead of a scan). So AUTO
    // prices the clustering algorithms there as one cluster (B = 0: no pass, the cluster join over
    // the whole input, which for an int32 key is the bucket-chained join of packed tuples), and does
    // not price the radix plans it would not choose (tens of microseconds, as much as a small join's
    // probe phase). The bound also guards against the cost model's cache levels, which on VMs can
    // report a last level no faster than memory.
    boolean singleCluster = auto && radix == null && fitsLastLevelCache(right);
    ProbeSkew skew = auto && !singleCluster ? probeSkew.get() : ProbeSkew.UNIFORM;
    List<JoinPlan.Candidate> candidates = new ArrayList<>();
    for (JoinAlgorithm algorithm : JoinAlgorithm.values()) {
      if (!algorithm.costed()) {
        continue;
      }
      RadixPlan fixed = !algorithm.clusters() ? null : singleCluster ? ONE_CLUSTER : radix;
      candidates.add(fixed == null ? model.best(algorithm, left, right, writeCombining, skew)
          : new JoinPlan.Candidate(algorithm, fixed, model.cost(algorithm, left, right, fixed, writeCombining, skew)));
    }
    candidates.sort(Comparator.comparingDouble(c -> c.cost().totalNanos()));
    JoinPlan.Candidate chosen = auto ? candidates.getFirst()
        : candidates.stream().filter(c -> c.algorithm() == requested).findFirst().orElseThrow();
    return new JoinPlan(chosen.algorithm(), chosen.radix(), chosen.cost(), candidates, skew, singleCluster);
  }

  private boolean fitsLastLevelCache(double right) {
    return model.hashTableBytes(right) <= model.lastLevelCacheBytes();
  }
}
