package dev.memwall.spark;

import static dev.memwall.core.expr.Expr.col;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.Table;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Evaluates the filters pushed into a scan over one record batch with memwall's plan
 * ({@code Plan.scan(batch).filter(predicate)}, its vectorized filter kernels) and returns the rows that
 * pass, as a selection of the batch's rows rather than a copy of them ({@link SelectionCapture}).
 *
 * <p>Memory: the plan allocates (little) from the context's memory and frees it before returning; the
 * selection array is on the heap, reused from batch to batch. Cancellation: the plan stops at its next
 * checkpoint when the context's token is cancelled or the thread interrupted, with
 * {@code QueryCancelledException}. Thread safety: none; one partition reader's thread.
 */
final class BatchFilter {
  private final Expr predicate;
  private final ExecutionContext context;
  private final SelectionCapture capture = new SelectionCapture();

  /** @param predicate a boolean memwall expression over the batches' columns */
  BatchFilter(Expr predicate, ExecutionContext context) {
    this.predicate = predicate;
    this.context = context;
  }

  /**
   * Runs the filter over {@code root}; afterwards {@link #rows()} holds the {@link #count()} passing rows.
   */
  void select(Schema schema, VectorSchemaRoot root, DictionaryProvider dictionaries) {
    capture.reset(root.getRowCount());
    Table batch = Table.borrow(schema, List.of(root), dictionaries);
    String anyColumn = schema.getFields().getFirst().getName();
    // The capture passes nothing on: the plan's result is empty, one column wide.
    try (Table nothing = Plan.scan(batch).filter(predicate).stage(capture).project(col(anyColumn).as(anyColumn))
        .execute(context)) {
      assert nothing.rowCount() == 0;
    }
  }

  int[] rows() {
    return capture.rows();
  }

  int count() {
    return capture.count();
  }
}
