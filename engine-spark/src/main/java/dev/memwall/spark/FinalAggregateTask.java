package dev.memwall.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate;
import org.apache.spark.sql.types.DataType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What a task of {@link MemwallFinalAggregateExec} runs over its partition of partial rows: reads them into
 * memwall's Arrow batches as it goes ({@link RowBatches}), merges them per group with memwall's hash
 * aggregation ({@link FinalAggregation}) on the task's thread with the task's {@link TaskResources}
 * (spilling when the groups outgrow half the task's memory, or what Spark grants; the other half reads the
 * partial rows and holds a part of the result), and hands out Spark's output rows one at a time:
 * each group's merged buffers, evaluated by Spark's own {@code evaluateExpression}s, then its result
 * expressions.
 *
 * <p>Ownership: the task's resources hold memwall's result until its last row is read, and are freed
 * then, or by the task's completion listener when Spark stops early. A returned row is valid until the
 * next. Cancellation: a killed task stops with Spark's {@code TaskKilledException}. Serializable: it
 * carries Spark's own (serializable) Catalyst expressions and translates them again in the task.
 *
 * @param input the attributes of the partial rows (the final aggregation's child's output)
 * @param grouping the final aggregation's grouping expressions
 * @param functions its aggregate expressions
 * @param results the attributes its functions' results are bound to ({@code aggregateAttributes})
 * @param resultExpressions its output expressions over the grouping attributes and {@code results}
 * @param taskMemoryBytes the memory each task asks Spark for
 */
record FinalAggregateTask(List<Attribute> input, List<NamedExpression> grouping, List<AggregateExpression> functions,
    List<Attribute> results, List<NamedExpression> resultExpressions, long taskMemoryBytes)
    implements FlatMapFunction<Iterator<InternalRow>, InternalRow>, Serializable {

  FinalAggregateTask {
    input = List.copyOf(input);
    grouping = List.copyOf(grouping);
    functions = List.copyOf(functions);
    results = List.copyOf(results);
    resultExpressions = List.copyOf(resultExpressions);
  }

  @Override
  public String toString() {
    return "memwall final aggregation: " + grouping.size() + " keys, " + functions.size() + " aggregates";
  }

  /** memwall's merge, translated again (here, in the task). */
  FinalAggregation aggregation() {
    FinalAggregation.Result translation = FinalAggregation.of(input, grouping, functions);
    if (translation.aggregation() == null) {
      throw new IllegalStateException("memwall: the final aggregation planned on the driver does not translate in"
          + " the task: " + translation.reason());
    }
    return translation.aggregation();
  }

  @Override
  public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
    return call(rows, null);
  }

  /** This task, adding each task's peak memory and spilled bytes to {@code metrics}. */
  FlatMapFunction<Iterator<InternalRow>, InternalRow> measured(OperatorMetrics metrics) {
    return rows -> call(rows, metrics);
  }

  /** The output rows of the groups of {@code rows}; {@code metrics} (may be null) gets the task's peak memory and spill. */
  Iterator<InternalRow> call(Iterator<InternalRow> rows, OperatorMetrics metrics) {
    FinalAggregation aggregation = aggregation();
    List<OutputSlot> slots = aggregation.slots();
    DataType[] types = java.util.Arrays.stream(aggregation.merged().fields()).map(f -> f.dataType())
        .toArray(DataType[]::new);
    Projection project = project();
    // half the memory for the groups: the rest reads the partial rows and holds a part of the result
    long workingMemory = Math.max(1, taskMemoryBytes / 2);
    return ResultRows.run(new ResultRows.Work("memwall final aggregation", taskMemoryBytes, workingMemory, metrics),
        rows, aggregation.inputTypes(), aggregation::plan, (batch, row) -> {
          Object[] values = new Object[slots.size()];
          for (int i = 0; i < values.length; i++) {
            values[i] = SparkValues.of(batch, row, slots.get(i), types[i]);
          }
          return project.apply(new GenericInternalRow(values));
        }, 0);
  }

  /**
   * Spark's output row of a merged buffer row (grouping attributes, then every function's buffer): the
   * functions' {@code evaluateExpression}s, then the result expressions, as Spark's own aggregation makes
   * them.
   */
  private Projection project() {
    List<Attribute> keys = grouping.stream().map(NamedExpression::toAttribute).toList();
    List<Attribute> buffers = new ArrayList<>(keys);
    List<Expression> evaluated = new ArrayList<>(keys);
    for (AggregateExpression function : functions) {
      DeclarativeAggregate f = (DeclarativeAggregate) function.aggregateFunction();
      buffers.addAll(CollectionConverters.asJava(f.aggBufferAttributes()));
      evaluated.add(f.evaluateExpression());
    }
    List<Attribute> resultInput = new ArrayList<>(keys);
    resultInput.addAll(results);
    UnsafeProjection evaluate = UnsafeProjection.create(seq(evaluated), seq(buffers));
    UnsafeProjection result = UnsafeProjection.create(seq(resultExpressions.stream().map(e -> (Expression) e).toList()),
        seq(resultInput));
    int partition = TaskContext.get() == null ? 0 : TaskContext.getPartitionId();
    evaluate.initialize(partition);
    result.initialize(partition);
    return row -> result.apply(evaluate.apply(row));
  }

  private static <T> scala.collection.immutable.Seq<T> seq(List<T> list) {
    return CollectionConverters.asScala(list).toSeq();
  }

  /** A Spark row of a merged buffer row. */
  private interface Projection {
    InternalRow apply(InternalRow merged);
  }
}
