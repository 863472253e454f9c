/**
 * Logical rewrites between conversion and execution. {@link dev.memwall.substrait.optimizer.JoinOrder}
 * turns the cross products under filters that SQL's comma joins arrive as into equi-joins: conditions
 * on one input pushed down to it, the join tree built by greedy operator ordering on the estimates of
 * {@link dev.memwall.substrait.optimizer.CardinalityEstimator}, which reads each table's
 * {@link dev.memwall.substrait.optimizer.TableStatistics} (row count; per column distinct count, nulls
 * and range, supplied or collected on first use).
 */
package dev.memwall.substrait.optimizer;
