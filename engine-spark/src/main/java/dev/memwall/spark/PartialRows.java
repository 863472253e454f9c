package dev.memwall.spark;

import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataType;

/**
 * The partial aggregation rows of one task of {@link MemwallPartialAggregateExec}, made as Spark asks for
 * them: one input partition is open at a time, one slice of it is aggregated at a time, and each group of
 * memwall's result becomes a Spark row only when the exchange reads it. The heap holds one row, not the
 * task's groups; memwall's memory holds one slice's groups.
 *
 * <p>Slices: a partition is first aggregated whole; when its groups do not fit the task's memory
 * ({@link BudgetExceededException}), each half of it is aggregated in turn instead, down to
 * {@value AggregateTask#MIN_SLICE_ROWS} rows. A partial aggregation may emit a key more than once (Spark's
 * final aggregation merges its input), so emitting early costs only more rows for the exchange, where
 * spilling would write and read the groups again. Each slice's result is freed before the next runs.
 *
 * <p>Ownership: a partition's resources are closed when its rows are exhausted, and by the task's
 * completion listener when Spark stops reading early (a limit, a failure, a kill). A returned row is
 * valid until the next call (Spark's operators copy what they keep). Cancellation: a killed task stops
 * with Spark's {@code TaskKilledException} between slices or inside memwall at its next checkpoint.
 * Thread safety: the task's thread.
 */
final class PartialRows implements Iterator<InternalRow> {
  /** What is left to do for the open partition: aggregate a slice, or close the halves of a batch. */
  private sealed interface Work {}

  private record Slice(List<VectorSchemaRoot> roots) implements Work {}

  private record Release(List<VectorSchemaRoot> halves) implements Work {}

  private final AggregateTask task;
  private final Iterator<MemwallInputPartition> partitions;
  private final UnsafeProjection project;
  private final DataType[] types;
  private final Deque<Work> work = new ArrayDeque<>();
  private AggregateTask.Opened open;
  private Table result;
  private int batch;
  private int row;
  private InternalRow next;

  PartialRows(AggregateTask task, Iterator<MemwallInputPartition> partitions) {
    this.task = task;
    this.partitions = partitions;
    this.project = UnsafeProjection.create(task.output());
    this.types = task.outputTypes();
  }

  @Override
  public boolean hasNext() {
    if (next == null) {
      next = advance();
    }
    return next != null;
  }

  @Override
  public InternalRow next() {
    if (!hasNext()) {
      throw new NoSuchElementException("no more partial aggregation rows");
    }
    InternalRow row = next;
    next = null;
    return row;
  }

  /** The next row, or null once every partition is done (and closed). */
  private InternalRow advance() {
    while (true) {
      if (result != null) {
        while (batch < result.batches().size()) {
          Batch current = result.batches().get(batch);
          if (row < current.rowCount()) {
            return toSparkRow(current, row++);
          }
          batch++;
          row = 0;
        }
        closeResult();
      } else if (!work.isEmpty()) {
        switch (work.pop()) {
          case Slice slice -> aggregate(slice.roots());
          case Release release -> release.halves().forEach(VectorSchemaRoot::close);
        }
      } else if (open != null) {
        AggregateTask.Opened done = open;
        open = null;
        done.resources().close();
      } else if (partitions.hasNext()) {
        try {
          open = task.open(partitions.next());
        } catch (IOException e) {
          throw new UncheckedIOException("memwall: cannot read the partial aggregation's input", e);
        }
        open.resources().own(this::release);
        work.push(new Slice(open.table().roots()));
      } else {
        return null;
      }
    }
  }

  /** Aggregates {@code slice} into {@link #result}, or queues its halves when its groups do not fit. */
  private void aggregate(List<VectorSchemaRoot> slice) {
    open.resources().checkKilled();
    Table table = open.table();
    try (Table input = Table.borrow(table.schema(), slice, table.provider())) {
      result = open.aggregation().plan(input, open.filter()).execute(open.context());
      batch = 0;
      row = 0;
    } catch (BudgetExceededException tooBig) {
      List<VectorSchemaRoot> halves = AggregateTask.halves(slice);
      if (halves == null) {
        throw tooBig;
      }
      if (slice.size() == 1) {
        work.push(new Release(halves)); // the two row slices made of one batch, closed after both ran
      }
      int middle = halves.size() / 2;
      work.push(new Slice(halves.subList(middle, halves.size())));
      work.push(new Slice(halves.subList(0, middle)));
    } catch (QueryCancelledException e) {
      open.resources().checkKilled(); // a killed task reports as killed
      throw e;
    }
  }

  private InternalRow toSparkRow(Batch batch, int row) {
    List<OutputSlot> slots = open.aggregation().slots();
    Object[] values = new Object[slots.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = SparkValues.of(batch, row, slots.get(i), types[i]);
    }
    return project.apply(new GenericInternalRow(values));
  }

  /** Frees what the open partition's work holds: the current result and the halves still queued. */
  private void release() {
    closeResult();
    while (!work.isEmpty()) {
      if (work.pop() instanceof Release release) {
        release.halves().forEach(VectorSchemaRoot::close);
      }
    }
  }

  private void closeResult() {
    if (result != null) {
      Table done = result;
      result = null;
      done.close();
    }
  }
}
