/**
 * The join algorithms behind {@link dev.memwall.join.Join} and the contract they all implement,
 * {@link dev.memwall.join.algorithm.JoinMethod}: each reads the (hash, row id) tuples of the two
 * inputs' keys ({@link dev.memwall.join.algorithm.JoinInput}) and emits pairs into a
 * {@link dev.memwall.join.algorithm.JoinOutput}, as its settings record says, and returns its report.
 * The algorithms of other packages ({@code grace}, {@code inspector}) implement the same interface.
 * Not a public API: the classes are public only so the planner, the other algorithm packages and the
 * API package can reach them.
 */
package dev.memwall.join.algorithm;
