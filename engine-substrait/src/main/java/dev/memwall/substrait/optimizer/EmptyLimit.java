package dev.memwall.substrait.optimizer;

import dev.memwall.substrait.logical.LogicalRel;

/**
 * A limit of no rows reads no rows: every scan beneath it is limited to none as well, so that no expression
 * over its rows is evaluated. Without this, {@code select k - 1 from t order by 1 limit 0} sorts every row
 * first and fails where {@code k - 1} overflows; SQL answers it (as DuckDB does) with no rows and no error.
 * The plan's answer is unchanged otherwise: the limit on top still passes nothing, whatever the inputs
 * beneath it give (an aggregation without keys over no rows, for one, still gives its row).
 *
 * <p>Stateless and thread-safe.
 */
public final class EmptyLimit {
  private EmptyLimit() {}

  /** {@code input} limited to {@code rows}; when {@code rows} is 0, with every scan in it limited to none. */
  public static LogicalRel of(LogicalRel input, long rows) {
    return new LogicalRel.Limit(rows == 0 ? emptied(input) : input, rows);
  }

  private static LogicalRel emptied(LogicalRel rel) {
    return Rebuild.eachNode(rel, node -> node instanceof LogicalRel.Scan scan ? new LogicalRel.Limit(scan, 0) : node);
  }
}
