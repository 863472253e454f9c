package dev.memwall.spark;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * The rows of a memwall result in a Spark task, each made as Spark asks for it, after which the task's
 * memwall resources are freed: the output of memwall's operators that run over a Spark child
 * ({@link FinalAggregateTask}, {@link SortTask}).
 *
 * <p>Ownership: {@code resources} own {@code result}; they are closed after the last row, or by the task's
 * completion listener when Spark stops reading early. A returned row is valid until the next (Spark's
 * operators copy what they keep). Thread safety: the task's thread.
 */
final class ResultRows implements Iterator<InternalRow> {
  /** Makes the Spark row of one row of the result. */
  interface RowMaker {
    InternalRow make(Batch batch, int row);
  }

  private final TaskResources resources;
  private final Table result;
  private final RowMaker maker;
  private int batch;
  private int row;
  private boolean done;

  /**
   * @param skip the rows to leave out first (a query's OFFSET)
   */
  ResultRows(TaskResources resources, Table result, RowMaker maker, long skip) {
    this.resources = resources;
    this.result = result;
    this.maker = maker;
    for (long left = skip; left > 0 && hasNext(); left--) {
      row++;
    }
  }

  @Override
  public boolean hasNext() {
    if (done) {
      return false;
    }
    while (batch < result.batches().size() && row == result.batches().get(batch).rowCount()) {
      batch++;
      row = 0;
    }
    if (batch == result.batches().size()) {
      done = true;
      resources.close();
      return false;
    }
    return true;
  }

  @Override
  public InternalRow next() {
    if (!hasNext()) {
      throw new NoSuchElementException("no more rows of memwall's result");
    }
    return maker.make(result.batches().get(batch), row++);
  }
}
