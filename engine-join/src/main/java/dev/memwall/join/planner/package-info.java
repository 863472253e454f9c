/**
 * The join planner: seed 000's cost model (section 4: radix-cluster, phash and radix-join costs
 * counted in cache and TLB misses) with every machine constant read from a
 * {@link dev.memwall.core.machine.MachineProfile}, used to choose the algorithm, the radix bits B
 * and the passes P.
 */
package dev.memwall.join.planner;
