package dev.memwall.spark;

import dev.memwall.core.Closing;
import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.spill.SpillDirectory;
import dev.memwall.core.spill.SpillSettings;
import dev.memwall.core.spill.SpilledBatches;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.util.Arrays;
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
 * <p>Spill on request: when another consumer of the task needs memory and Spark asks memwall's lease to
 * spill ({@link TaskMemoryLease#spill}), the part being read goes to disk from its unread batch on, and is
 * read back a batch at a time, as Spark's own sorter spills the rest of a result being read. A sort's
 * result held whole (one that fit its memory) is then read from disk instead of holding memory that
 * another operator of the task (the other side of a sort-merge join, say) needs.
 *
 * <p>Ownership: {@code resources} own the parts; each part is freed once its rows are read, and the
 * resources are closed after the last row, or by the task's completion listener when Spark stops reading
 * early. A returned row is valid until the next (Spark's operators copy what they keep). Thread safety: the
 * task's thread.
 */
final class ResultRows implements Iterator<InternalRow> {
  /** Who spills, in spill errors. */
  private static final String SPILLER = "memwall result held in a Spark task";

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
    return run(TaskResources.open(work.name(), work.taskMemoryBytes()), work, rows, types, plan, maker, skip);
  }

  /** {@link #run} with {@code resources} of the caller's, which this owns from now on. */
  static ResultRows run(TaskResources resources, Work work, Iterator<InternalRow> rows,
      org.apache.spark.sql.types.DataType[] types, java.util.function.Function<RowBatches, Plan> plan, RowMaker maker,
      long skip) {
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
  /** The task's thread: the only one on which Spark's request to spill is honoured. */
  private final Thread thread = Thread.currentThread();
  /** The part being read; null before the first, after the last, and once its rest went to disk. */
  private Table part;
  /** The index in {@link #part} of {@link #current}. */
  private int batch;
  /** The unread rest of a part that Spark asked memwall to spill, read back a batch at a time; or null. */
  private SpilledBatches spilled;
  /** The rows already read of the first batch read back from {@link #spilled}. */
  private int readBefore;
  private SpillDirectory directory;
  /** The batch being read (of the part, or read back), and its next row; null: move on. */
  private Batch current;
  private int row;
  /** Whether a method of this is running: a request to spill is honoured only between them. */
  private boolean busy;
  private boolean done;

  private ResultRows(TaskResources resources, TableReader.Tables parts, RowMaker maker) {
    this.resources = resources;
    this.parts = parts;
    this.maker = maker;
    resources.own(this::closeHeld); // what Spark stopped reading in is freed with the rest
    startPart(parts.next());
    resources.spillable(this::spill);
  }

  private void startPart(Table next) {
    part = next;
    batch = 0;
    current = part == null || part.batches().isEmpty() ? null : part.batches().getFirst();
    row = 0;
  }

  private void closePart() {
    if (part != null) {
      Table reading = part;
      part = null;
      current = null;
      reading.close();
    }
  }

  /** Frees the part, or the rest read back, and the spill directory. */
  private void closeHeld() {
    try {
      closePart();
    } finally {
      Closing.closeAll(Arrays.asList(spilled, directory));
      spilled = null;
      directory = null;
    }
  }

  @Override
  public boolean hasNext() {
    if (done) {
      return false;
    }
    busy = true;
    try {
      while (current == null || row == current.rowCount()) {
        if (!advance()) {
          done = true;
          resources.close();
          return false;
        }
      }
      return true;
    } catch (RuntimeException | Error e) {
      done = true;
      throw failed(resources, e);
    } finally {
      busy = false;
    }
  }

  /** Moves to the next batch: read back, of the part, or of the next part; false after the last part. */
  private boolean advance() {
    row = 0;
    if (spilled != null) {
      Table back = spilled.next(resources.memory().arrow());
      if (back != null) {
        current = back.batches().getFirst();
        row = readBefore;
        readBefore = 0;
        return true;
      }
      spilled.close();
      spilled = null;
    } else if (part != null && ++batch < part.batches().size()) {
      current = part.batches().get(batch);
      return true;
    }
    closePart();
    startPart(parts.next());
    return part != null;
  }

  @Override
  public InternalRow next() {
    if (!hasNext()) {
      throw new NoSuchElementException("no more rows of memwall's result");
    }
    return maker.make(current, row++);
  }

  /**
   * Spark asked for memory back (through the lease, on the task's thread, between two rows), more than the
   * memory kept for reuse gave: the part's unread batches go to disk as they are, taking no memory to write
   * ({@link SpilledBatches}), and are read back a batch at a time; a part read to its end is just freed.
   * Returns the bytes freed (all of the part's, whatever {@code bytes} asked); 0 when there is no part in
   * memory, or the request comes from another thread or from inside this reader.
   *
   * @throws dev.memwall.core.spill.SpillException when the disk refuses; the part stays in memory
   */
  private long spill(long bytes) {
    if (busy || done || part == null || Thread.currentThread() != thread) {
      return 0;
    }
    long before = resources.memory().allocatedBytes();
    int from = current != null && row < current.rowCount() ? batch : batch + 1;
    if (from < part.batches().size()) {
      SpillSettings settings = resources.context().spillSettings();
      if (!settings.enabled()) {
        return 0;
      }
      if (directory == null) {
        directory = settings.newDirectory(SPILLER);
      }
      spilled = SpilledBatches.write(directory.newFile("result"), part, from, SPILLER);
      readBefore = from == batch ? row : 0;
      resources.spilledOnRequest(spilled.bytes());
    }
    closePart();
    return before - resources.memory().allocatedBytes();
  }
}
