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
 * rows into memwall's batches as they come ({@link RowBatches}), sorts them with memwall's sort (spilling
 * runs when they outgrow the task's memory; for a limit, a top-N that keeps the best rows), and hands out
 * Spark rows of the same columns one at a time, the first {@code offset} left out.
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
    SortSpec.Result translation = SortSpec.of(input, order);
    if (translation.spec() == null) {
      throw new IllegalStateException("memwall: the sort planned on the driver does not translate in the task: "
          + translation.reason());
    }
    SortSpec spec = translation.spec();
    DataType[] types = spec.types();
    UnsafeProjection project = UnsafeProjection.create(types);
    return ResultRows.run("memwall sort", taskMemoryBytes, rows, types, batches -> spec.plan(batches, limit),
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
