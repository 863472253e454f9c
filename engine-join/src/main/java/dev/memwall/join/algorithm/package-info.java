/**
 * The join algorithms behind {@link dev.memwall.join.Join}: each reads the (hash, row id) tuples of
 * the two inputs' keys and emits pairs into a {@link dev.memwall.join.algorithm.JoinOutput}. Not a
 * public API: the classes are public only so the planner and the API package can reach them.
 */
package dev.memwall.join.algorithm;
