package dev.memwall.core.spill;

/**
 * What one spilling operator did, reported when it finishes (see
 * {@code ExecutionContext.Builder#spillReports}): how much working memory it held at most, and how
 * much it spilled.
 *
 * @param operator "hash aggregation", "sort", ...
 * @param peakWorkingBytes the most working memory it held at once; -1 where it was not counted apart
 *     (no working-memory limit and no report asked for)
 * @param spilledBytes bytes written to spill files (0: everything fit in memory)
 * @param runs spill runs written (aggregation: partitioned runs of partial groups; sort: sorted runs)
 * @param depth aggregation: the deepest level of re-partitioning (0: none, 1: one pass over the
 *     partitions); sort: the merge passes
 * @param partitions aggregation: the partitions of runs aggregated each on its own, spilled or kept in
 *     memory (0: the workers' tables were merged); other operators: 0
 */
public record SpillReport(String operator, long peakWorkingBytes, long spilledBytes, int runs, int depth,
    int partitions) {
  /** A report of an operator that does not partition its runs (a sort, a join). */
  public SpillReport(String operator, long peakWorkingBytes, long spilledBytes, int runs, int depth) {
    this(operator, peakWorkingBytes, spilledBytes, runs, depth, 0);
  }

  /** Whether the operator wrote anything to disk. */
  public boolean spilled() {
    return spilledBytes > 0;
  }
}
