package dev.memwall.spark;

import dev.memwall.core.vector.Column;
import java.io.Serializable;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataType;

/**
 * What a task of {@link MemwallSortExec} or {@link MemwallTakeOrderedExec} runs over its partition: reads the
 * rows into memwall's batches as they come ({@link RowBatches}), sorts them with memwall's sort (for a limit,
 * a top-N that keeps the best rows), and hands out Spark rows of the same columns one at a time, the first
 * {@code offset} left out.
 *
 * <p>Memory: the sort holds at most {@value #WORKING_MEMORY} bytes of working memory (or half the task's
 * memwall memory, if less: the rest reads the input and holds a part of the result), and spills sorted runs
 * past it; a sort that spilled merges its runs a part at a time as Spark reads the rows ({@link ResultRows}),
 * so a partition of any size is sorted in that memory. The bound is fixed rather than a share of
 * {@link MemwallSettings#TASK_MEMORY}, which is only an upper bound that Spark may refuse long before: 128 MiB
 * is within what Spark grants a task on executors of a few GiB, and a sort that outgrew what Spark grants
 * could not spill, since sorting a run takes memory beside it.
 *
 * <p>Ownership, cancellation: as {@link FinalAggregateTask}'s. Serializable: it carries Spark's own
 * attributes and sort orders and translates them again in the task.
 *
 * @param input the attributes of the rows (the child's output)
 * @param order Spark's ordering
 * @param limit the rows to keep (negative: all)
 * @param offset the first rows of those to leave out
 * @param taskMemoryBytes the memory each task asks Spark for
 */
record SortTask(List<Attribute> input, List<SortOrder> order, long limit, long offset, long taskMemoryBytes)
    implements FlatMapFunction<Iterator<InternalRow>, InternalRow>, Serializable {

  /** The most working memory a task's sort holds before it spills a run. */
  static final long WORKING_MEMORY = 128L << 20;

  SortTask {
    input = List.copyOf(input);
    order = List.copyOf(order);
  }

  @Override
  public String toString() {
    return "memwall sort: " + order.size() + " keys" + (limit < 0 ? "" : ", limit " + limit);
  }

  @Override
  public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
    return call(rows, null);
  }

  /** This task, adding each task's peak memory and spilled bytes to {@code metrics}. */
  FlatMapFunction<Iterator<InternalRow>, InternalRow> measured(OperatorMetrics metrics) {
    return rows -> call(rows, metrics);
  }

  /** The sorted rows of {@code rows}; {@code metrics} (may be null) gets the task's peak memory and spill. */
  Iterator<InternalRow> call(Iterator<InternalRow> rows, OperatorMetrics metrics) {
    SortSpec.Result translation = SortSpec.of(input, order);
    if (translation.spec() == null) {
      throw new IllegalStateException("memwall: the sort planned on the driver does not translate in the task: "
          + translation.reason());
    }
    SortSpec spec = translation.spec();
    DataType[] types = spec.types();
    UnsafeProjection project = UnsafeProjection.create(types);
    long workingMemory = Math.max(1, Math.min(WORKING_MEMORY, taskMemoryBytes / 2));
    return ResultRows.run(new ResultRows.Work("memwall sort", taskMemoryBytes, workingMemory, metrics), rows, types,
        batches -> spec.plan(batches, limit),
        (batch, row) -> {
          Object[] values = new Object[types.length];
          for (int i = 0; i < values.length; i++) {
            Column column = batch.column(i);
            values[i] = column.isNull(row) ? null : SparkValues.value(column, row, types[i]);
          }
          return project.apply(new GenericInternalRow(values));
        }, offset);
  }
}
