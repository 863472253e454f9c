/**
 * Logical rewrites between conversion and execution. {@link dev.memwall.substrait.optimizer.JoinOrder}
 * turns the cross products under filters that SQL's comma joins arrive as into equi-joins: conditions
 * on one input pushed down to it, the join tree built greedily from the equality conditions with
 * row-count estimates ({@code RowEstimate}: the catalog's row counts, a fixed fraction per filter).
 */
package dev.memwall.substrait.optimizer;
