/**
 * Radix partitioning (seed 000, section 3.3; seed 001, Cieslewicz and Ross): clustering tuples of
 * (64-bit hash, 32-bit row id) on the low bits of the hash, in several passes so that each pass
 * writes to no more clusters than the TLB and the caches can keep open at once.
 */
package dev.memwall.core.partition;
