/**
 * Benchmarks of the in-memory joins and their parts (seed 000, Manegold, Boncz and Kersten 2000):
 * every algorithm at the paper's Table 2 sizes ({@link dev.memwall.bench.join.JoinAlgorithmsBenchmark}),
 * workload A, radix clustering (Figs. 11-13), the pipelined probe and the planner's cost.
 */
package dev.memwall.bench.join;
