package dev.memwall.spark;

import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * What a task of {@link MemwallPartialAggregateExec} runs for its input partition (a run of record batches of
 * one file): maps the file, runs memwall's plan over those batches
 * ({@code Plan.scan(file).filter(pushed predicates).aggregate(keys, aggregates)}) on the task's thread with
 * the task's {@link TaskResources}, and returns Spark's partial aggregation rows (grouping keys and
 * aggregation buffers, as {@code UnsafeRow}s) for the exchange that follows.
 *
 * <p>Memory: the task's grant bounds the groups memwall holds; when they do not fit, the input is
 * aggregated in slices and each slice's groups are emitted before the next ({@link #aggregateSlices}).
 *
 * <p>The groups are copied into Spark rows before the task's memwall memory is freed, so the returned
 * rows own their data. Serializable: it carries Spark's own (serializable) Catalyst expressions and V2
 * predicates and translates them again on the executor, against the task's file.
 *
 * @param grouping the partial aggregation's grouping expressions
 * @param functions its aggregate expressions
 * @param output the types of its output columns
 * @param dataSchema the data set's Spark schema, as planned
 * @param pushed the scan's pushed predicates
 * @param taskMemoryBytes the memory each task asks Spark for
 */
record AggregateTask(List<NamedExpression> grouping, List<AggregateExpression> functions, StructType output,
    StructType dataSchema, Predicate[] pushed, long taskMemoryBytes)
    implements FlatMapFunction<Iterator<MemwallInputPartition>, InternalRow>, Serializable {

  AggregateTask {
    grouping = List.copyOf(grouping);
    functions = List.copyOf(functions);
  }

  @Override
  public String toString() {
    return "memwall partial aggregation: " + grouping.size() + " keys, " + functions.size() + " aggregates, "
        + pushed.length + " pushed predicates";
  }

  @Override
  public Iterator<InternalRow> call(Iterator<MemwallInputPartition> partitions) throws IOException {
    List<InternalRow> rows = new ArrayList<>();
    while (partitions.hasNext()) {
      aggregate(partitions.next(), rows);
    }
    return rows.iterator();
  }

  private void aggregate(MemwallInputPartition partition, List<InternalRow> rows) throws IOException {
    Path file = Path.of(partition.path());
    try (TaskResources resources = TaskResources.open("memwall partial aggregation of " + file.getFileName(),
        taskMemoryBytes)) {
      resources.checkKilled();
      Set<String> read = new LinkedHashSet<>();
      List<Expression> inputs = new ArrayList<>(functions);
      grouping.forEach(key -> inputs.add((Expression) key)); // every NamedExpression is an Expression
      for (Expression input : inputs) {
        input.references().foreach(attribute -> read.add(attribute.name()));
      }
      PredicateTranslator.addColumns(pushed, read);
      Table table = partition.read(resources, dataSchema, read);
      PartialAggregation.Result translation = PartialAggregation.of(grouping, functions, output, table.schema());
      if (translation.aggregation() == null) {
        throw new IllegalStateException("memwall: the aggregation planned on the driver does not translate for "
            + file + ": " + translation.reason());
      }
      Expr filter = MemwallPartitionReader.predicate(pushed, dataSchema);
      // no spilling: a partial aggregation short of memory emits its groups early instead (aggregateSlices)
      ExecutionContext context = resources.context().toBuilder().spilling(false).build();
      try {
        aggregateSlices(table.roots(), table, translation.aggregation(), filter, context, rows);
      } catch (QueryCancelledException e) {
        resources.checkKilled(); // a killed task reports as killed
        throw e;
      }
    }
  }

  /**
   * Aggregates the rows of {@code slice} (batches of {@code table}) and appends Spark's partial rows for
   * them. When their groups do not fit the task's memory, aggregates each half of them in turn instead,
   * down to {@value #MIN_SLICE_ROWS} rows: a partial aggregation may emit a key more than once, as
   * Spark's final aggregation merges its input, so emitting early costs only more rows for the
   * exchange, where spilling would write and read the groups again. The memory of each slice's result
   * is freed before the next slice runs.
   *
   * @throws BudgetExceededException when even {@value #MIN_SLICE_ROWS} rows' groups do not fit
   */
  private void aggregateSlices(List<VectorSchemaRoot> slice, Table table, PartialAggregation aggregation, Expr filter,
      ExecutionContext context, List<InternalRow> rows) {
    try (Table input = Table.borrow(table.schema(), slice, table.provider());
        Table result = aggregation.plan(input, filter).execute(context)) {
      toSparkRows(result, aggregation.slots(), rows);
    } catch (BudgetExceededException tooBig) {
      List<VectorSchemaRoot> halves = halves(slice);
      if (halves == null) {
        throw tooBig;
      }
      try {
        int middle = halves.size() / 2;
        aggregateSlices(halves.subList(0, middle), table, aggregation, filter, context, rows);
        aggregateSlices(halves.subList(middle, halves.size()), table, aggregation, filter, context, rows);
      } finally {
        if (slice.size() == 1) {
          halves.forEach(VectorSchemaRoot::close); // the two row slices made of one batch
        }
      }
    }
  }

  /** The smallest slice whose groups must fit the task's memory. */
  static final int MIN_SLICE_ROWS = 1024;

  /**
   * {@code slice} cut in two: its batches in two runs (the same roots), or one batch's rows in two
   * zero-copy slices (new roots over the same buffers, the caller's to close); null when it is one batch
   * of at most {@value #MIN_SLICE_ROWS} rows.
   */
  private static List<VectorSchemaRoot> halves(List<VectorSchemaRoot> slice) {
    if (slice.size() > 1) {
      return slice;
    }
    VectorSchemaRoot root = slice.getFirst();
    int rows = root.getRowCount();
    if (rows <= MIN_SLICE_ROWS) {
      return null;
    }
    VectorSchemaRoot first = root.slice(0, rows / 2);
    try {
      return List.of(first, root.slice(rows / 2, rows - rows / 2));
    } catch (RuntimeException e) {
      first.close();
      throw e;
    }
  }

  /** Spark's partial rows of memwall's {@code result}, copied. */
  private void toSparkRows(Table result, List<OutputSlot> slots, List<InternalRow> rows) {
    UnsafeProjection project = UnsafeProjection.create(output);
    DataType[] types = java.util.Arrays.stream(output.fields()).map(f -> f.dataType()).toArray(DataType[]::new);
    for (Batch batch : result.batches()) {
      for (int row = 0; row < batch.rowCount(); row++) {
        Object[] values = new Object[slots.size()];
        for (int i = 0; i < values.length; i++) {
          OutputSlot slot = slots.get(i);
          Column column = batch.column(slot.column());
          boolean isNull = column.isNull(row);
          values[i] = switch (slot.kind()) {
            case IS_NULL -> isNull;
            case COUNT -> column.getLong(row);
            case VALUE -> isNull ? null : value(column, row, types[i]);
            case VALUE_OR_ZERO -> isNull ? zero(types[i]) : value(column, row, types[i]);
            case TOTAL_MIN -> isNull ? null
                : batch.column(slot.column() + 1).getLong(row) == 0 ? Double.NaN : value(column, row, types[i]);
          };
        }
        rows.add(project.apply(new GenericInternalRow(values)).copy());
      }
    }
  }

  /** The value at {@code row} of a memwall result column, as Spark's internal value of {@code type}. */
  private static Object value(Column column, int row, DataType type) {
    if (DataTypes.IntegerType.equals(type) || DataTypes.DateType.equals(type)) {
      return (int) column.getLong(row);
    } else if (DataTypes.LongType.equals(type)) {
      return column.getLong(row);
    } else if (DataTypes.DoubleType.equals(type)) {
      return column.type().kind() == ColumnType.Kind.FLOAT64 ? column.getDouble(row) : (double) column.getLong(row);
    } else if (type instanceof DecimalType decimal) {
      return Decimal.apply(column.getLong(row), decimal.precision(), decimal.scale());
    } else if (DataTypes.StringType.equals(type)) {
      return UTF8String.fromString((String) column.getObject(row));
    }
    throw new IllegalStateException("memwall: no Spark value of type " + type + " for column " + column);
  }

  private static Object zero(DataType type) {
    if (type instanceof DecimalType decimal) {
      return Decimal.apply(0L, decimal.precision(), decimal.scale());
    } else if (DataTypes.DoubleType.equals(type)) {
      return 0.0;
    } else if (DataTypes.LongType.equals(type)) {
      return 0L;
    } else if (DataTypes.IntegerType.equals(type)) {
      return 0;
    }
    throw new IllegalStateException("memwall: no zero of type " + type);
  }
}
