/**
 * Benchmarks of the GRACE, hybrid and inspector hash joins (seed 002, Chen 2005): the partition and
 * join phases with group and software-pipelined prefetching, spilled against in-memory joins, and the
 * inspector join against enhanced cache partitioning.
 */
package dev.memwall.bench.grace;
