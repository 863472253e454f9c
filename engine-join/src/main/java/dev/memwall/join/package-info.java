/**
 * Cache-conscious equi-joins over Arrow tables (seed 000, sections 3-4; seed 001, Cieslewicz and
 * Ross): non-partitioned hash joins (bucket-chained and open addressing with batched probes),
 * sort-merge on radix-clustered inputs, radix-cluster partitioned hash joins (phash, phash+) and
 * radix-join, single- or multi-threaded, chosen by a cost-model planner; and, asked for by name
 * (seed 002, chapters 4-5), GRACE and hybrid hash joins that spill, the inspector join and enhanced
 * cache partitioning, optionally behind a Bloom-filter semi-join reducer.
 *
 * <p>Entry point: {@link dev.memwall.join.Join}. Inputs are borrowed {@link dev.memwall.core.vector.Table}s;
 * outputs (a {@link dev.memwall.join.common.JoinIndex} of row-id pairs, or a materialized
 * {@link dev.memwall.core.vector.Table}) belong to the caller, who closes them.
 */
package dev.memwall.join;
