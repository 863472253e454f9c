package dev.memwall.join.planner;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.HugePages;
import dev.memwall.core.partition.RadixPlan;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.algorithm.ClusterJoin;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Seed 000's cost model (section 4), brought to a machine with three cache levels, hardware
 * prefetching and memory-level parallelism. Every machine constant comes from a
 * {@link MachineProfile}:
 *
 * <ul>
 *   <li>Cache levels: capacities ({@code effectiveBytes} where measured, the sysfs size otherwise)
 *       and hit latencies. A random access into a footprint of F bytes is served by level i with
 *       probability {@code min(1, |Li| / F)} minus what the smaller levels serve; what no cache
 *       holds goes to memory. A level whose latency was not measured, or measured at half a miss
 *       or more (a VM's share of a host's large last level), counts only as far as the latency
 *       curve stays under half a miss, at the curve's latency there; none of it, if the curve
 *       never does. Independent accesses overlap their cache hits as they overlap their misses
 *       (by T1 / Tnext).
 *   <li>Memory: independent random misses (the iterations of a partitioning or probing loop) cost
 *       Tnext, the pipelined miss; dependent ones (following a chain) cost T1. Sequential streams
 *       cost their bytes over the measured one-core read bandwidth: the seed's {@code 2 |Re|}
 *       compulsory misses, which prefetchers now hide behind bandwidth.
 *   <li>TLB: {@code entries} pages are free; beyond, a page access misses with probability
 *       {@code 1 - entries / pages} (the seed's {@code C (1 - |TLB| / H_p)}) at
 *       {@code tlb.missNanos}. The joins' own buffers (extracted tuples, clusters, hash tables) ask
 *       for transparent huge pages, so where the calibration found them their pages are 2 MiB, not
 *       the profile's base {@code pageBytes}: a radix pass's open clusters then share a few huge pages
 *       instead of each holding a page of its own, which is why one pass stays the cheapest up to
 *       many more bits than the seed's 1999 TLB allowed (docs/benchmarks/joins.md, Figs. 11-13).
 * </ul>
 *
 * <p>CPU work per tuple (the seed's w_c, w_h, w'_h, w_r, w'_r) is expressed in units of one L1 hit
 * (the profile's L1 latency, a few cycles). Those weights are properties of the code, not of the
 * machine: they were fitted to seed 000's Table 2 (joins of 125K, 1M and 8M unique keys per side,
 * every costed algorithm at the model's plan), so that the cheapest prediction is the fastest run at
 * each size; how close the predictions come is in docs/benchmarks/joins.md, and {@code explain}
 * reports how far a prediction is from a measured run.
 *
 * <p>Model inputs: C_left, C_right tuples, laid out as the partitioned joins will ({@link Layout}:
 * 12-byte (hash, row id) tuples in two streams, or for a key of one int32 column 8-byte (key,
 * row id) words in one), unique build keys, one result per left tuple (hit rate 1), the seed's
 * assumptions; the left (probe) keys uniform, or skewed as a {@link ProbeSkew} sample says: the hot
 * share of the probes finds its table lines in the cache in the non-partitioned joins.
 *
 * <p>Thread safety: immutable.
 */
public final class CostModel {
  /** How the radix algorithms lay out the tuples they cluster: the bytes a pass moves, the lines and pages a cluster keeps open. */
  public enum Layout {
    /** {@link dev.memwall.core.partition.HashedTuples}: (hash, row id) in two streams, 12 bytes, extracted before clustering; any key. */
    HASHED(12, 2, W_EXTRACT, W_CLUSTER, W_HASH),
    /**
     * {@link dev.memwall.core.partition.PackedTuples}: (key, row id) in one 8-byte word, clustered
     * straight from the key column; a key of one int32 column. Its CPU weights were fitted on
     * workload A (16M x 64M, B = 6-14 in one pass; docs/benchmarks/joins.md): a pass hashes with one
     * multiplication instead of reading a stored hash, and the cluster tables are heap arrays.
     */
    PACKED(8, 1, 1.0, 2.5, 1.75);

    final double tupleBytes;
    final int streams;
    /** CPU per tuple to read its key from Arrow (and pack it), in L1 hits. */
    final double extract;
    /** CPU per tuple and radix pass, in L1 hits. */
    final double cluster;
    /** CPU per tuple to insert into or probe a cluster's table, in L1 hits. */
    final double hash;

    Layout(double tupleBytes, int streams, double extract, double cluster, double hash) {
      this.tupleBytes = tupleBytes;
      this.streams = streams;
      this.extract = extract;
      this.cluster = cluster;
      this.hash = hash;
    }
  }

  /** Bytes of one build key as a probe reads it to confirm a match. */
  static final double KEY_BYTES = 4;
  /** Bytes of one extracted tuple. */
  static final double TUPLE_BYTES = 12;
  /** CPU per tuple and radix pass (histogram and scatter), in L1 hits. */
  static final double W_CLUSTER = 7.0;
  /**
   * CPU per tuple and radix pass for the copy through a software write-combining buffer, in L1 hits:
   * the difference between whole phash+ joins with and without the buffers, per tuple clustered
   * ({@code JoinAlgorithmsBenchmark}, docs/benchmarks/joins.md).
   */
  static final double W_WRITE_COMBINE = 3.5;
  /** CPU per tuple to extract and hash its key from Arrow, in L1 hits. */
  static final double W_EXTRACT = 2.0;
  /** CPU per tuple to insert into or probe a hash table, in L1 hits. */
  static final double W_HASH = 5.0;
  /** CPU per cluster to set up a table, in L1 hits (the seed's w'_h). */
  static final double W_CLUSTER_SETUP = 30;
  /** CPU per bucket cleared, in L1 hits. */
  static final double W_BUCKET = 0.75;
  /** CPU per nested-loop comparison (the seed's w_r), in L1 hits. */
  static final double W_COMPARE = 0.9;
  /** CPU per result pair (the seed's w'_r), in L1 hits. */
  static final double W_RESULT = 1.25;
  /** CPU per tuple and comparison level of the per-cluster sort, in L1 hits. */
  static final double W_SORT = 2.5;

  private final long[] levelBytes;
  private final double[] levelNanos;
  private final double independentMissNanos;
  private final double dependentMissNanos;
  private final double overlap;
  private final double bytesPerNano;
  private final double writeBytesPerNano;
  private final double bufferPageBytes;
  private final long tlbEntries;
  private final double tlbMissNanos;
  private final double unit;
  private final int maxBitsPerPass;
  private final Layout layout;

  /** The model of joins over any key: the partitioned joins' tuples {@link Layout#HASHED}. */
  public CostModel(MachineProfile profile) {
    this(profile, Layout.HASHED);
  }

  /** The model of joins whose partitioned algorithms lay their tuples out as {@code layout} (sort-merge: always hashed). */
  public CostModel(MachineProfile profile, Layout layout) {
    this.layout = layout;
    List<MachineProfile.MeasuredCache> caches = profile.caches().stream()
        .filter(c -> c.cache().holdsData()).sorted(Comparator.comparingInt(c -> c.cache().level())).toList();
    if (caches.isEmpty()) {
      throw new IllegalArgumentException("machine profile without data caches: " + profile.cpu());
    }
    List<Level> levels = new ArrayList<>();
    double cacheLike = Double.isFinite(profile.missLatencyNanos()) ? profile.missLatencyNanos() / 2 : Double.MAX_VALUE;
    for (MachineProfile.MeasuredCache c : caches) {
      Level level = new Level(c.effectiveBytes() > 0 ? c.effectiveBytes() : c.cache().sizeBytes(), c.hitLatencyNanos());
      if (!(Double.isFinite(level.nanos()) && level.nanos() > 0 && level.nanos() < cacheLike)) {
        // not measured, or measured as slow as memory (a VM's share of a large last level):
        // the latency curve says how much of it still behaves as a cache, and how fast
        long below = levels.isEmpty() ? 0 : levels.getLast().bytes();
        level = fastestBeyond(profile, below, c.cache().sizeBytes(), cacheLike);
        if (level == null && levels.isEmpty()) {
          level = new Level(c.cache().sizeBytes(), 1.0); // an unmeasured first level: a nanosecond
        }
      }
      if (level != null) {
        levels.add(level);
      }
    }
    levelBytes = levels.stream().mapToLong(Level::bytes).toArray();
    levelNanos = levels.stream().mapToDouble(Level::nanos).toArray();
    unit = levelNanos[0];
    independentMissNanos = profile.pipelinedMissNanos();
    dependentMissNanos = profile.missLatencyNanos();
    double parallelism = dependentMissNanos / independentMissNanos;
    overlap = Double.isFinite(parallelism) && parallelism > 1 ? parallelism : 1;
    bytesPerNano = profile.bandwidth().readOneCore();
    writeBytesPerNano = profile.bandwidth().writeOneCore();
    bufferPageBytes = Double.isFinite(profile.tlb().hugePageMissNanos()) ? HugePages.HUGE_PAGE_BYTES
        : profile.pageBytes();
    tlbEntries = Math.max(1, profile.tlb().entries());
    tlbMissNanos = Double.isFinite(profile.tlb().missNanos()) ? Math.max(0, profile.tlb().missNanos()) : 0;
    // a cluster being written keeps two pages open (its hash region and its row region)
    maxBitsPerPass = Math.max(1, 63 - Long.numberOfLeadingZeros(tlbEntries) - 1);
  }

  /** A cache level as the model uses it: bytes it serves, latency of a hit. */
  private record Level(long bytes, double nanos) {}

  /**
   * The largest working set of the latency curve above {@code below} and within {@code sizeBytes}
   * whose latency is still under {@code cacheLike}, as a level: the part of a cache level that
   * behaves as one; null if none.
   */
  private static Level fastestBeyond(MachineProfile profile, long below, long sizeBytes, double cacheLike) {
    Level best = null;
    for (MachineProfile.LatencyPoint p : profile.curve()) {
      if (p.workingSetBytes() > below && p.workingSetBytes() <= sizeBytes && p.nanosPerAccess() < cacheLike
          && (best == null || p.workingSetBytes() > best.bytes())) {
        best = new Level(p.workingSetBytes(), p.nanosPerAccess());
      }
    }
    return best;
  }

  /**
   * The most bits one radix pass should use: the seed's rule, no more clusters than TLB entries,
   * halved because each open cluster spans two pages here (hashes and row ids are separate arrays).
   */
  public int maxBitsPerPass() {
    return Math.min(maxBitsPerPass, RadixPlan.MAX_BITS_PER_PASS);
  }

  /** Expected latency beyond an L1 hit of one random access into {@code footprint} bytes. */
  double randomAccess(double footprint, boolean dependent) {
    return cacheAndMemory(footprint, dependent) + tlbMiss(footprint / bufferPageBytes) * tlbMissNanos;
  }

  /**
   * Expected latency beyond an L1 hit, without the TLB: each level serves its share of the
   * footprint; independent accesses overlap their cache hits as they overlap their misses (by the
   * memory-level parallelism T1 / Tnext).
   */
  private double cacheAndMemory(double footprint, boolean dependent) {
    double served = 0;
    double nanos = 0;
    for (int i = 0; i < levelBytes.length; i++) {
      double upTo = Math.min(1, levelBytes[i] / Math.max(1, footprint));
      nanos += (upTo - served) * (levelNanos[i] - unit);
      served = Math.max(served, upTo);
    }
    nanos = dependent ? nanos : nanos / overlap;
    double memory = dependent ? dependentMissNanos : independentMissNanos;
    return nanos + (1 - served) * Math.max(0, memory - unit);
  }

  private double tlbMiss(double pages) {
    return pages <= tlbEntries ? 0 : 1 - tlbEntries / pages;
  }

  private double stream(double bytes) {
    return bytes / bytesPerNano;
  }

  /** Allocating a table of {@code bytes}: the memory comes zeroed, a sequential write. */
  private double cleared(double bytes) {
    return bytes / writeBytesPerNano;
  }

  /** Radix-clustering {@code tuples} {@link Layout#HASHED} tuples by {@code plan} (the seed's T_c). */
  public double cluster(double tuples, RadixPlan plan, boolean writeCombining) {
    return cluster(tuples, plan, writeCombining, Layout.HASHED);
  }

  /**
   * Radix-clustering {@code tuples} tuples laid out as {@code layout} by {@code plan} (the seed's
   * T_c); packed tuples are never written through write-combining buffers.
   */
  public double cluster(double tuples, RadixPlan plan, boolean writeCombining, Layout layout) {
    boolean combining = writeCombining && layout == Layout.HASHED;
    double bytes = layout.tupleBytes;
    // hashed: extracted whole first; packed: the first pass reads the key column twice
    double nanos = tuples * (layout.extract * unit + stream(layout == Layout.HASHED ? bytes + 4 : 2 * KEY_BYTES));
    for (int p = 0; p < plan.passes(); p++) {
      double fanout = 1 << plan.bitsOfPass(p);
      // a pass reads the hash to count, then reads and writes the tuple
      nanos += tuples * ((layout.cluster + (combining ? W_WRITE_COMBINE : 0)) * unit + stream(8 + 2 * bytes));
      // the count and the move each bump a counter and wait for it; with the pass's two counter
      // arrays (8 bytes a cluster) out of L1 that is the step measured on workload A from 10 ns a
      // tuple at 12 bits to 11 at 13 and 14 at 14 (packed), and from 2.7 to 3.2 s a join between
      // 12 and 13 bits (hashed)
      nanos += tuples * 2 * cacheAndMemory(8 * fanout, true);
      // each tuple writes into one of `fanout` open lines per stream, or a 96-byte buffer
      double active = fanout * (combining ? 96 : 64 * layout.streams);
      nanos += tuples * cacheAndMemory(active, false);
      // each open cluster writes into a page per stream; small clusters share pages
      double openPages = Math.min(layout.streams * fanout, Math.ceil(tuples * bytes / bufferPageBytes) + 2);
      double pageTouches = combining ? tuples / 4 : tuples * layout.streams;
      nanos += pageTouches * tlbMiss(openPages) * tlbMissNanos;
    }
    return nanos;
  }

  /** The join phase over 2^B cluster pairs of {@link Layout#HASHED} tuples (the seed's T_h and T_r). */
  public double clusterJoin(double left, double right, int bits, ClusterJoin.Kind kind) {
    return clusterJoin(left, right, bits, kind, Layout.HASHED);
  }

  /** The join phase over 2^B cluster pairs of tuples laid out as {@code layout} (the seed's T_h and T_r). */
  public double clusterJoin(double left, double right, int bits, ClusterJoin.Kind kind, Layout layout) {
    double bytes = layout.tupleBytes;
    double clusters = Math.pow(2, bits);
    double rightPerCluster = Math.max(1, right / clusters);
    double leftPerCluster = left / clusters;
    double nanos = stream((left + right) * bytes) + left * W_RESULT * unit;
    boolean nested = kind == ClusterJoin.Kind.NESTED_LOOPS && rightPerCluster <= ClusterJoin.NESTED_LOOP_LIMIT;
    if (nested) {
      double footprint = rightPerCluster * bytes;
      return nanos + left * rightPerCluster * W_COMPARE * unit + clusters * W_CLUSTER_SETUP * unit / 4
          + left * randomAccess(footprint, false) / 8;
    }
    ClusterJoin.Kind hashKind = kind == ClusterJoin.Kind.NESTED_LOOPS ? ClusterJoin.Kind.PHASH_PLUS : kind;
    int buckets = hashKind.buckets((long) Math.ceil(rightPerCluster));
    double footprint = rightPerCluster * (bytes + 4) + buckets * 4.0;
    double chain = Math.max(1, rightPerCluster / buckets);
    nanos += clusters * (W_CLUSTER_SETUP + buckets * W_BUCKET) * unit;
    nanos += right * (layout.hash * unit + randomAccess(footprint, false));
    nanos += leftPerCluster * clusters * (layout.hash * unit + randomAccess(footprint, false)
        + chain * (W_COMPARE * unit + randomAccess(footprint, true)));
    return nanos;
  }

  /** The whole non-partitioned bucket-chained join (extraction included), probed by {@code skew}ed keys. */
  public JoinPlan.Cost simpleHash(double left, double right, ProbeSkew skew) {
    double buckets = Math.max(2, Long.highestOneBit((long) Math.max(1, right) * 2 - 1));
    double footprint = buckets * 4 + right * (TUPLE_BYTES + 4);
    double build = cleared(buckets * 4 + right * 4)
        + right * (W_EXTRACT * unit + stream(2 * TUPLE_BYTES) + W_HASH * unit + randomAccess(buckets * 4, false));
    double cold = randomAccess(buckets * 4, false) + 1.5 * randomAccess(footprint, true);
    double hot = 2.5 * randomAccess(hotBytes(skew), true);
    double probe = left * (W_EXTRACT * unit + W_HASH * unit + W_RESULT * unit + skewed(cold, hot, skew));
    return new JoinPlan.Cost(build, probe);
  }

  /**
   * Bytes the hot keys of {@code skew} keep in the cache while they are probed: two lines each (a
   * bucket or slot, and the build key or tuple it leads to).
   */
  private static double hotBytes(ProbeSkew skew) {
    return Math.max(1, skew.hotKeys()) * 128.0;
  }

  /** A probe's memory latency when {@code skew}'s hot share of the probes costs {@code hot} and the rest {@code cold}. */
  private static double skewed(double cold, double hot, ProbeSkew skew) {
    return (1 - skew.hotShare()) * cold + skew.hotShare() * hot;
  }

  /** Bytes of the largest data cache (its measured effective size where known), where a hash table can stay. */
  public long lastLevelCacheBytes() {
    return levelBytes[levelBytes.length - 1];
  }

  /**
   * Bytes of the non-partitioned hash table over {@code right} build tuples: the open-addressing
   * table's slots, which are also more than the bucket-chained table's heads and tuples.
   */
  public double hashTableBytes(double right) {
    return Math.max(2, Long.highestOneBit((long) Math.max(1, right) * 4 - 1)) * 16.0;
  }

  /** The whole non-partitioned open-addressing join with grouped probes, probed by {@code skew}ed keys. */
  public JoinPlan.Cost openAddressing(double left, double right, ProbeSkew skew) {
    double slots = Math.max(2, Long.highestOneBit((long) Math.max(1, right) * 4 - 1));
    // the slots are on huge pages (no TLB misses); a probe then confirms its key in the build side's
    // key column, a second independent access, as a group's loads are all issued before any is used
    double slotAccess = cacheAndMemory(slots * 16, false);
    double keyAccess = cacheAndMemory(right * KEY_BYTES, false);
    double build = cleared(slots * 16 + right * 4) + right * ((W_EXTRACT + W_HASH) * unit + slotAccess);
    double cold = slotAccess + keyAccess;
    double hot = 2 * cacheAndMemory(hotBytes(skew), false);
    double probe = left * ((W_EXTRACT + W_HASH + W_RESULT) * unit + skewed(cold, hot, skew));
    return new JoinPlan.Cost(build, probe);
  }

  /** Sort-merge on inputs radix-clustered by {@code plan}. */
  public JoinPlan.Cost sortMerge(double left, double right, RadixPlan plan, boolean writeCombining) {
    double cluster = cluster(left, plan, writeCombining) + cluster(right, plan, writeCombining);
    double perCluster = Math.max(2, Math.max(left, right) / plan.clusters());
    double sort = (left + right) * Math.log(perCluster) / Math.log(2) * W_SORT * unit;
    double merge = stream((left + right) * TUPLE_BYTES) + (left + right) * W_COMPARE * unit + left * W_RESULT * unit;
    return new JoinPlan.Cost(cluster, sort + merge);
  }

  /** A radix algorithm with {@code plan}: clustering both inputs (laid out as this model's {@link Layout}), then the join phase. */
  public JoinPlan.Cost partitioned(double left, double right, RadixPlan plan, ClusterJoin.Kind kind,
      boolean writeCombining) {
    return new JoinPlan.Cost(cluster(left, plan, writeCombining, layout) + cluster(right, plan, writeCombining, layout),
        clusterJoin(left, right, plan.bits(), kind, layout));
  }

  /**
   * The cost of {@code algorithm} with {@code plan} (null for the non-partitioned ones), the left
   * side probing with {@code skew}: it lowers the non-partitioned joins' probe costs only.
   */
  public JoinPlan.Cost cost(JoinAlgorithm algorithm, double left, double right, RadixPlan plan, boolean writeCombining,
      ProbeSkew skew) {
    return switch (algorithm) {
      case SIMPLE_HASH -> simpleHash(left, right, skew);
      case OPEN_ADDRESSING -> openAddressing(left, right, skew);
      case SORT_MERGE -> sortMerge(left, right, plan, writeCombining);
      case PHASH -> partitioned(left, right, plan, ClusterJoin.Kind.PHASH, writeCombining);
      case PHASH_PLUS -> partitioned(left, right, plan, ClusterJoin.Kind.PHASH_PLUS, writeCombining);
      case RADIX_JOIN -> partitioned(left, right, plan, ClusterJoin.Kind.NESTED_LOOPS, writeCombining);
      // in memory, the spilling joins are a bucket-chained hash join (their disk cost is HybridSplit's)
      case GRACE, HYBRID_HASH -> simpleHash(left, right, skew);
      case INSPECTOR, ENHANCED_CACHE_PARTITIONING -> throw new IllegalArgumentException(algorithm
          + " is asked for by name, not costed");
      case DENSE_KEYS -> throw new IllegalArgumentException(algorithm + " is chosen by its keys, not costed");
      case AUTO -> throw new IllegalArgumentException("AUTO is not an algorithm to cost");
    };
  }

  /** The radix plans worth considering for inputs of these sizes: every B, with 1..4 even passes. */
  public List<RadixPlan> radixPlans(double left, double right) {
    double larger = Math.max(2, Math.max(left, right));
    // at least ~2 tuples per cluster on the larger side, so boundary arrays stay below the tuples
    int maxBits = (int) Math.min(RadixPlan.MAX_BITS, Math.max(0, Math.floor(Math.log(larger / 2) / Math.log(2))));
    List<RadixPlan> plans = new ArrayList<>();
    for (int bits = 0; bits <= maxBits; bits++) {
      int minPasses = bits == 0 ? 0 : (bits + RadixPlan.MAX_BITS_PER_PASS - 1) / RadixPlan.MAX_BITS_PER_PASS;
      for (int passes = Math.max(minPasses, bits == 0 ? 0 : 1); passes <= Math.min(4, Math.max(bits, minPasses)); passes++) {
        plans.add(RadixPlan.even(bits, passes));
        if (bits == 0) {
          break;
        }
      }
    }
    return plans;
  }

  /** The cheapest radix plan for {@code algorithm}. */
  public JoinPlan.Candidate best(JoinAlgorithm algorithm, double left, double right, boolean writeCombining,
      ProbeSkew skew) {
    if (!algorithm.clusters()) {
      return new JoinPlan.Candidate(algorithm, null, cost(algorithm, left, right, null, writeCombining, skew));
    }
    JoinPlan.Candidate best = null;
    for (RadixPlan plan : radixPlans(left, right)) {
      JoinPlan.Cost cost = cost(algorithm, left, right, plan, writeCombining, skew);
      if (best == null || cost.totalNanos() < best.cost().totalNanos()) {
        best = new JoinPlan.Candidate(algorithm, plan, cost);
      }
    }
    return best;
  }
}
