package dev.memwall.spark;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.plan.ExecutionContext;
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
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * What a task of {@link MemwallPartialAggregateExec} runs for its input partition (a run of record batches of
 * one file): maps the file, runs memwall's plan over those batches
 * ({@code Plan.scan(file).filter(pushed predicates).aggregate(keys, aggregates)}) on the task's thread with
 * the task's {@link TaskResources}, and returns Spark's partial aggregation rows (grouping keys and
 * aggregation buffers, as {@code UnsafeRow}s) for the exchange that follows.
 *
 * <p>Memory: the task's grant bounds the groups memwall holds; when they do not fit, the input is
 * aggregated in slices and each slice's groups are emitted before the next ({@link PartialRows}).
 * The rows stream: the task holds one slice's groups at a time, in memwall's memory, and each Spark row
 * is made as the exchange asks for it (valid until the next, as Spark's operators hand rows on). Serializable: it carries Spark's own (serializable) Catalyst expressions and V2
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
  public Iterator<InternalRow> call(Iterator<MemwallInputPartition> partitions) {
    return new PartialRows(this, partitions);
  }

  /**
   * Opens {@code partition} for the task: its file mapped in new {@link TaskResources} (the caller's to
   * close), the aggregation translated against it and the pushed predicates.
   */
  Opened open(MemwallInputPartition partition) throws IOException {
    Path file = Path.of(partition.path());
    TaskResources resources = TaskResources.open("memwall partial aggregation of " + file.getFileName(),
        taskMemoryBytes);
    try {
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
      // no spilling: a partial aggregation short of memory emits its groups early instead (PartialRows)
      ExecutionContext context = resources.context().toBuilder().spilling(false).build();
      return new Opened(resources, table, translation.aggregation(), filter, context);
    } catch (IOException | RuntimeException | Error e) {
      try {
        resources.close();
      } catch (RuntimeException | Error suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * One input partition open in a task: its resources (which own the mapped table), memwall's
   * aggregation and filter (null: none), and the context to run them in.
   */
  record Opened(TaskResources resources, Table table, PartialAggregation aggregation, Expr filter,
      ExecutionContext context) {}

  /** Spark's partial output columns' types, in order. */
  DataType[] outputTypes() {
    return java.util.Arrays.stream(output.fields()).map(f -> f.dataType()).toArray(DataType[]::new);
  }

  /** The smallest slice whose groups must fit the task's memory. */
  static final int MIN_SLICE_ROWS = 1024;

  /**
   * {@code slice} cut in two: its batches in two runs (the same roots), or one batch's rows in two
   * zero-copy slices (new roots over the same buffers, the caller's to close); null when it is one batch
   * of at most {@value #MIN_SLICE_ROWS} rows.
   */
  static List<VectorSchemaRoot> halves(List<VectorSchemaRoot> slice) {
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
}
