/**
 * The vocabulary every join algorithm and the {@link dev.memwall.join.Join} facade share: the join
 * types ({@link dev.memwall.join.common.JoinType}), the algorithms that can be asked for by name
 * ({@link dev.memwall.join.common.JoinAlgorithm}), the result of row-id pairs
 * ({@link dev.memwall.join.common.JoinIndex}, read in {@link dev.memwall.join.common.PairChunk}s), and
 * the join's failures ({@link dev.memwall.join.common.JoinKeyException},
 * {@link dev.memwall.join.common.JoinMemoryException},
 * {@link dev.memwall.join.common.JoinSpillException}).
 *
 * <p>It sits below them all: the algorithm packages ({@code algorithm}, {@code grace},
 * {@code inspector}, {@code keys}, {@code planner}, {@code prefetch}, {@code reducer}, ...) use these
 * types, and the facade in {@code dev.memwall.join} both uses them and names every algorithm package.
 * Were the vocabulary to live beside the facade, the algorithms and the facade would depend on each
 * other in a package cycle; here it depends on none of them (its Javadoc links to the facade are
 * fully qualified and create no dependency).
 */
package dev.memwall.join.common;
