package dev.memwall.spark;

import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * The rows of a memwall result in a Spark task, each made as Spark asks for it, after which the task's
 * memwall resources are freed: the output of memwall's operators that run over a Spark child
 * ({@link FinalAggregateTask}, {@link SortTask}). The result is read in memwall's parts
 * ({@link Plan#parts}), so a sort that spilled is merged a part at a time as Spark reads it, and the
 * task holds one part of its result, not all of it.
 *
 * <p>Ownership: {@code resources} own the parts; each part is freed once its rows are read, and the
 * resources are closed after the last row, or by the task's completion listener when Spark stops reading
 * early. A returned row is valid until the next (Spark's operators copy what they keep). Thread safety: the
 * task's thread.
 */
final class ResultRows implements Iterator<InternalRow> {
  /** Makes the Spark row of one row of the result. */
  interface RowMaker {
    InternalRow make(Batch batch, int row);
  }

  /**
   * What runs in the task, and with what memory.
   *
   * @param name what runs, for the budget's name
   * @param taskMemoryBytes the most memwall memory the task asks Spark for
   * @param workingMemoryBytes the most working memory memwall's operators may hold together
   *     ({@link dev.memwall.core.plan.ExecutionContext#memoryLimit}; {@link Long#MAX_VALUE}: the task's)
   * @param metrics where the task's peak memory and spilled bytes are added when it ends (null: nowhere)
   */
  record Work(String name, long taskMemoryBytes, long workingMemoryBytes, OperatorMetrics metrics) {}

  /**
   * Runs a memwall plan over {@code rows} in new {@link TaskResources} of the current task and returns its
   * result's rows: {@code plan} makes the plan over the rows read into memwall's batches of {@code types}
   * ({@link RowBatches}), which runs at once on the task's thread, up to its result's first part.
   *
   * @param skip the result's first rows to leave out
   * @throws dev.memwall.core.concurrent.QueryCancelledException or Spark's {@code TaskKilledException} when
   *     the task is killed, everything freed first
   */
  static ResultRows run(Work work, Iterator<InternalRow> rows, org.apache.spark.sql.types.DataType[] types,
      java.util.function.Function<RowBatches, Plan> plan, RowMaker maker, long skip) {
    TaskResources resources = TaskResources.open(work.name(), work.taskMemoryBytes());
    try {
      if (work.metrics() != null) {
        resources.own(() -> work.metrics().record(resources)); // closed last of what is owned: the peak is final
      }
      resources.checkKilled();
      RowBatches batches = new RowBatches(rows, types, resources.memory().arrow());
      ExecutionContext context = work.workingMemoryBytes() == Long.MAX_VALUE ? resources.context()
          : resources.context().toBuilder().memoryLimit(work.workingMemoryBytes()).build();
      TableReader.Tables parts = resources.own(plan.apply(batches).parts(context, null));
      ResultRows result = new ResultRows(resources, parts, maker);
      for (long left = skip; left > 0 && result.hasNext(); left--) {
        result.row++;
      }
      return result;
    } catch (RuntimeException | Error e) {
      throw failed(resources, e);
    }
  }

  /** Frees {@code resources} after {@code failure}; a killed task reports as killed. Returns the failure to throw. */
  private static RuntimeException failed(TaskResources resources, Throwable failure) {
    resources.closeAfter(failure);
    if (failure instanceof QueryCancelledException) {
      resources.checkKilled();
    }
    if (failure instanceof Error error) {
      throw error;
    }
    return (RuntimeException) failure;
  }

  private final TaskResources resources;
  private final TableReader.Tables parts;
  private final RowMaker maker;
  /** The part being read; null before the first and after the last. */
  private Table part;
  private int batch;
  private int row;
  private boolean done;

  private ResultRows(TaskResources resources, TableReader.Tables parts, RowMaker maker) {
    this.resources = resources;
    this.parts = parts;
    this.maker = maker;
    resources.own(this::closePart); // a part Spark stopped reading in is freed with the rest
    this.part = parts.next();
  }

  private void closePart() {
    if (part != null) {
      Table reading = part;
      part = null;
      reading.close();
    }
  }

  @Override
  public boolean hasNext() {
    if (done) {
      return false;
    }
    try {
      while (part != null && !inPart()) {
        closePart();
        part = parts.next();
        batch = 0;
        row = 0;
      }
    } catch (RuntimeException | Error e) {
      done = true;
      throw failed(resources, e);
    }
    if (part == null) {
      done = true;
      resources.close();
      return false;
    }
    return true;
  }

  /** Whether the current part has a row at or after {@code batch}/{@code row} (moving past finished batches). */
  private boolean inPart() {
    while (batch < part.batches().size() && row == part.batches().get(batch).rowCount()) {
      batch++;
      row = 0;
    }
    return batch < part.batches().size();
  }

  @Override
  public InternalRow next() {
    if (!hasNext()) {
      throw new NoSuchElementException("no more rows of memwall's result");
    }
    return maker.make(part.batches().get(batch), row++);
  }
}
