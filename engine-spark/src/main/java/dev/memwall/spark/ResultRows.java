package dev.memwall.spark;

import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.plan.Plan;
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

  /**
   * Runs a memwall plan over {@code rows} in new {@link TaskResources} of the current task and returns its
   * result's rows: {@code plan} makes the plan over the rows read into memwall's batches of {@code types}
   * ({@link RowBatches}), which runs at once on the task's thread.
   *
   * @param name what runs, for the budget's name
   * @param skip the result's first rows to leave out
   * @throws dev.memwall.core.concurrent.QueryCancelledException or Spark's {@code TaskKilledException} when
   *     the task is killed, everything freed first
   */
  static ResultRows run(String name, long taskMemoryBytes, Iterator<InternalRow> rows,
      org.apache.spark.sql.types.DataType[] types, java.util.function.Function<RowBatches, Plan> plan,
      RowMaker maker, long skip) {
    TaskResources resources = TaskResources.open(name, taskMemoryBytes);
    try {
      resources.checkKilled();
      RowBatches batches = new RowBatches(rows, types, resources.memory().arrow());
      Table result = resources.own(plan.apply(batches).execute(resources.context()));
      return new ResultRows(resources, result, maker, skip);
    } catch (QueryCancelledException e) {
      resources.closeAfter(e);
      resources.checkKilled(); // a killed task reports as killed
      throw e;
    } catch (RuntimeException | Error e) {
      resources.closeAfter(e);
      throw e;
    }
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
  private ResultRows(TaskResources resources, Table result, RowMaker maker, long skip) {
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
