package dev.memwall.core.operator;

import dev.memwall.core.Closing;
import dev.memwall.core.vector.Table;
import java.util.Arrays;

/**
 * A blocking operator's result handed out in parts, each made when it is asked for: a sort that spilled
 * merges its runs a part at a time ({@link ExternalSort#finishInParts}), an aggregation that spilled
 * aggregates its partitions a round at a time ({@link SpillingAggregation#finishInParts}), so that the
 * result is never held whole.
 *
 * <p>Ownership: each part is the caller's to close; the parts own the operator that makes them, and
 * closing them frees it (its readers, runs, spill directory and working memory), whether or not every
 * part was read. Thread safety: one thread.
 */
public interface ResultParts extends AutoCloseable {
  /** The next part of the result, in order, or null after the last. */
  Table next();

  @Override
  void close();

  /** The one part {@code table}; closing closes the table if it was not handed out, then {@code owner} (may be null). */
  static ResultParts whole(Table table, AutoCloseable owner) {
    return new ResultParts() {
      private Table left = table;

      @Override
      public Table next() {
        Table next = left;
        left = null;
        return next;
      }

      @Override
      public void close() {
        Closing.closeAll(Arrays.asList(left, owner));
        left = null;
      }
    };
  }
}
