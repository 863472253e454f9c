/**
 * Logical rewrites between conversion and execution. {@link dev.memwall.substrait.optimizer.JoinOrder}
 * turns the cross products under filters that SQL's comma joins arrive as into equi-joins: conditions
 * on one input pushed down to it, the join tree built by greedy operator ordering on the estimates of
 * {@link dev.memwall.substrait.optimizer.CardinalityEstimator}, which reads each table's
 * {@link dev.memwall.substrait.optimizer.TableStatistics} (row count; per column distinct count, nulls
 * and range, supplied or collected on first use), and pushes down the single-input filters an OR over
 * several inputs implies ({@link dev.memwall.substrait.optimizer.DisjunctionPushdown}) where they drop
 * most rows.
 * {@link dev.memwall.substrait.optimizer.EagerCount} counts a left outer join's optional side before
 * the join. From the keys the catalog declares, {@code KeyDependencies}
 * derives which columns determine which, so that
 * {@link dev.memwall.substrait.optimizer.AggregateBeforeLookup} aggregates before joins that only look
 * up grouping columns and {@link dev.memwall.substrait.optimizer.DeterminedGroupingKeys} groups by
 * fewer keys, carrying the determined ones; from the foreign keys it declares,
 * {@link dev.memwall.substrait.optimizer.TopNBeforeLookup} takes a top-N before a join that extends
 * each of its rows once. {@link dev.memwall.substrait.optimizer.BuildSideReduction} semi joins a
 * join's build side to a filtered input its probe side is joined to on the same key.
 * {@link dev.memwall.substrait.optimizer.SharedAggregateInput} computes the rows an aggregate is joined
 * back to once, {@link dev.memwall.substrait.optimizer.RepeatedJoinInput} a probe side its build side
 * repeats, {@link dev.memwall.substrait.optimizer.CommonAggregations} an aggregation that appears
 * twice, and {@link dev.memwall.substrait.optimizer.GroupReduction} groups a joined aggregation only
 * for the keys the join reads, after {@link dev.memwall.substrait.optimizer.AggregationJoinedLast} has
 * joined it after a join on a filtered table's key that reduces them; {@link
 * dev.memwall.substrait.optimizer.NestedSemiJoins} has a semi join of a table whose keys are among
 * another's read that one's rows; these five share a relation between its readers
 * ({@link dev.memwall.substrait.logical.LogicalRel.Shared}), the one sharing mechanism.
 * {@link dev.memwall.substrait.optimizer.ForeignKeySemiJoin} semi joins on part of a foreign key
 * where the referenced rows are kept by a semi join on that part of their key. {@link dev.memwall.substrait.optimizer.ConstantFolding},
 * {@link dev.memwall.substrait.optimizer.InLists} and {@link dev.memwall.substrait.optimizer.RangeUnions}
 * simplify expressions as they are converted.
 */
package dev.memwall.substrait.optimizer;
