package dev.memwall.core.operator;

/**
 * How a grouped aggregation lays out its per-group state (sums, minima, maxima, counts), the choice
 * Zukowski, Nes and Boncz study in "DSM vs NSM: CPU performance tradeoffs in block-oriented query
 * processing" (seed 001, section 3.3, Table 2).
 *
 * <p>The input is columnar (Arrow) either way, and the aggregate functions are computed column at
 * a time over a chunk; only the accumulator table and the order of its update loop differ.
 */
public enum AggregateLayout {
  /**
   * DSM: one array per aggregate, indexed by group id; the update loop adds one aggregate at a time
   * over the whole chunk. With many groups every aggregate of a row touches its own cache line.
   */
  COLUMNS,
  /**
   * NSM: all state of one group side by side in one row; the update loop adds all aggregates of
   * one input row before the next, so a row's updates share one or two cache lines.
   */
  ROWS
}
