package dev.memwall.join.common;

/**
 * The join algorithms a {@link dev.memwall.join.Join} can be asked for by name, or {@link #AUTO} for
 * the planner's choice.
 */
public enum JoinAlgorithm {
  /** The cost-model planner chooses the algorithm and its radix bits and passes. */
  AUTO,
  /** Non-partitioned bucket-chained hash join (seed 000's "simple hash join"). */
  SIMPLE_HASH,
  /** Non-partitioned open-addressing hash join with batched (grouped) probes. */
  OPEN_ADDRESSING,
  /**
   * The array join ({@link dev.memwall.join.algorithm.DenseKeyJoin}): the right keys' rows in an
   * array over their range, probed by key with no hash. AUTO takes it, before consulting the cost
   * model, whenever the right keys may fit it: one integral column, no key repeated, an array no
   * larger than the open-addressing table. Where they turn out not to (a repeat the first look
   * missed), or when it is asked for by name on other keys, the open-addressing join runs instead.
   */
  DENSE_KEYS,
  /** Sort-merge join on radix-sorted inputs. */
  SORT_MERGE,
  /** Radix-cluster partitioned hash join, about 4 tuples per bucket, at least 256 buckets. */
  PHASH,
  /** Improved partitioned hash join: about 1 tuple per bucket, tiny minimum table. */
  PHASH_PLUS,
  /** Radix-join: radix-cluster to about 8 tuples per cluster, nested loops per cluster pair. */
  RADIX_JOIN,
  /**
   * GRACE hash join: when the build side exceeds the join's memory
   * ({@link dev.memwall.join.Join#memoryLimit}), both inputs are hash-partitioned to spill files and
   * joined partition pair by partition pair.
   */
  GRACE,
  /** Hybrid hash join: GRACE that keeps as many partitions in memory as its memory and cost model allow. */
  HYBRID_HASH,
  /**
   * Inspector join (seed 002, chapter 5): sub-partition Bloom filters built while partitioning the
   * build side, inspected while partitioning the probe side, then a cache-stationary join phase (or
   * enhanced cache partitioning where the inspection finds it better); see
   * {@link dev.memwall.join.inspector.InspectorJoin}.
   */
  INSPECTOR,
  /**
   * Enhanced cache partitioning (seed 002, chapter 5's strongest baseline): memory partitions
   * re-partitioned into cache-sized sub-partitions, each pair joined with a cache-resident table.
   */
  ENHANCED_CACHE_PARTITIONING;

  /** Whether the algorithm spills partitions to disk when its memory is too small (never chosen by AUTO). */
  public boolean spills() {
    return this == GRACE || this == HYBRID_HASH;
  }

  /**
   * Whether the planner's cost model covers it (and AUTO may choose it by cost): not the spilling
   * joins, nor the inspector join and enhanced cache partitioning, which are asked for by name, nor
   * the array join, which AUTO takes by its keys rather than by cost.
   */
  public boolean costed() {
    return this != AUTO && !spills() && this != INSPECTOR && this != ENHANCED_CACHE_PARTITIONING && this != DENSE_KEYS;
  }

  /** Whether the algorithm radix-clusters its inputs (and so takes radix bits and passes). */
  public boolean clusters() {
    return this == SORT_MERGE || this == PHASH || this == PHASH_PLUS || this == RADIX_JOIN;
  }
}
