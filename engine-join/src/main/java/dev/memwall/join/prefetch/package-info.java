/**
 * Group and software-pipelined "prefetching" for hash-table build and probe ({@link
 * dev.memwall.join.prefetch.PrefetchingHashJoin}) and for the partition phase's partition loop
 * ({@link dev.memwall.join.prefetch.PrefetchingPartitioner}), seed 002 chapter 4, as the JVM allows
 * it. Java has no prefetch instruction, so the "prefetch" of a stage is the independent load itself:
 * a stage issues the load of the next dependent memory reference for every tuple of a group (or D
 * iterations ahead) before any loaded value is used, and keeps what it loaded in small per-tuple
 * state arrays. The loads of different tuples do not depend on each other, so the out-of-order core
 * keeps many cache misses in flight (memory-level parallelism) instead of taking them one after the
 * other. G and D come from the machine profile by the thesis's conditions (eq. 4.1 and 4.2), see
 * {@link dev.memwall.join.prefetch.PrefetchTuning}.
 *
 * <p>What that changes, measured (docs/benchmarks/joins.md, GRACE join phase): a load, unlike a
 * prefetch instruction, retires only when its line arrives, so the reorder window bounds how far
 * ahead the loads reach.
 * The group form, whose early stages are tight loops of independent loads, gets many misses in
 * flight, and beats the plain loop on a table far beyond the cache, probe and build alike. The
 * software-pipelined form interleaves all stages in every iteration, so
 * each early load has whole iterations queued behind it; it is slower than the group form at every
 * distance D, and a larger D does not help. The partition loop gains little in any form (its misses
 * are stores, which the core already overlaps), so the GRACE join uses it only for pages beyond the
 * cache.
 */
package dev.memwall.join.prefetch;
