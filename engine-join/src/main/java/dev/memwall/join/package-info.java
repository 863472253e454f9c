/**
 * Cache-conscious equi-joins over Arrow columns (seeds 000 and 002): radix-cluster partitioned
 * hash join and radix-join, GRACE and hybrid hash joins, group and software-pipelined
 * prefetching, inspector joins.
 *
 * <p>The algorithms arrive with the "Joins I" and "Joins II" issues; until then this module holds
 * no types.
 */
package dev.memwall.join;
