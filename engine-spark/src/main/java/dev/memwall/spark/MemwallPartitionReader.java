package dev.memwall.spark;

import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.Map;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads one input partition of a memwall scan inside a Spark task (a run of record batches of one file,
 * {@link MemwallInputPartition}): maps the file zero-copy, validating only the batches and columns it reads
 * ({@link MemwallInputPartition#read}), and returns those
 * record batches one at a time as {@link ColumnarBatch}es of the requested columns, viewing
 * the mapped buffers in place ({@link SparkVectors}). With pushed filters, memwall's plan evaluates them
 * over each batch ({@link BatchFilter}) and the batch Spark sees holds only the passing rows, still in
 * place ({@link SelectedVector}); batches where no row passes are skipped.
 *
 * <p>Ownership: the reader owns its {@link TaskResources} (engine memory backed by the task's memory
 * lease, the mapping, the cancellation token) and frees them in {@link #close}, which a task completion
 * listener also calls, so a failed or killed task frees everything. A returned batch is valid until the
 * next {@link #next} or {@link #close}; Spark reads it before then.
 *
 * <p>Cancellation: a killed task stops between batches (Spark's {@code TaskKilledException}) and inside
 * memwall's filter plans (at their next checkpoint). Bad input: a file that changed since the driver
 * planned the scan (other rows or schema) fails the task with {@link IllegalStateException} naming it.
 * Thread safety: one task thread.
 */
final class MemwallPartitionReader implements PartitionReader<ColumnarBatch> {
  private final TaskResources resources;
  private final Table table;
  private final DictionaryProvider dictionaries;
  private final int[] columns;
  private final BatchFilter filter;
  private final SparkVectors vectors = new SparkVectors();
  private int batch = -1;
  private ColumnarBatch current;

  private MemwallPartitionReader(TaskResources resources, Table table, int[] columns, BatchFilter filter) {
    this.resources = resources;
    this.table = table;
    this.dictionaries = table.provider();
    this.columns = columns;
    this.filter = filter;
  }

  /**
   * Opens a reader of {@code partition}'s file, in the current task.
   *
   * @param dataSchema the data set's Spark schema, as planned on the driver
   * @param readSchema the columns to return, in order
   * @param pushed predicates to evaluate, all translatable ({@link PredicateTranslator})
   * @param taskMemoryBytes the memory to ask the task for
   */
  static MemwallPartitionReader open(MemwallInputPartition partition, StructType dataSchema, StructType readSchema,
      Predicate[] pushed, long taskMemoryBytes) {
    Path file = Path.of(partition.path());
    TaskResources resources = TaskResources.open("memwall scan of " + file.getFileName(), taskMemoryBytes);
    try {
      Set<String> read = new LinkedHashSet<>(List.of(readSchema.fieldNames()));
      PredicateTranslator.addColumns(pushed, read);
      Table table = partition.read(resources, dataSchema, read);
      int[] columns = new int[readSchema.fields().length];
      for (int i = 0; i < columns.length; i++) {
        columns[i] = table.columnIndex(readSchema.fields()[i].name());
      }
      Expr predicate = predicate(pushed, dataSchema);
      BatchFilter filter = predicate == null ? null : new BatchFilter(predicate, resources.context());
      return new MemwallPartitionReader(resources, table, columns, filter);
    } catch (IOException e) {
      resources.closeAfter(e);
      throw new IllegalStateException("memwall cannot read " + file + ": " + e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      resources.closeAfter(e);
      throw e;
    }
  }

  /** The conjunction of the pushed predicates, or null for none. */
  static Expr predicate(Predicate[] pushed, StructType dataSchema) {
    if (pushed.length == 0) {
      return null;
    }
    Map<String, DataType> types = new LinkedHashMap<>();
    for (StructField field : dataSchema.fields()) {
      types.put(field.name(), field.dataType());
    }
    List<Expr> operands = new ArrayList<>();
    for (Predicate predicate : pushed) {
      PredicateTranslator.Result result = PredicateTranslator.translate(predicate, types);
      if (!result.translated()) {
        throw new IllegalStateException("memwall: pushed predicate " + predicate.describe()
            + " does not translate on the executor: " + result.reason());
      }
      operands.add(result.expr());
    }
    return operands.size() == 1 ? operands.getFirst() : new Expr.And(operands);
  }

  @Override
  public boolean next() {
    resources.checkKilled();
    current = null;
    try {
      while (++batch < table.roots().size()) {
        Batch view = table.batches().get(batch);
        int rows = view.rowCount();
        if (rows == 0) {
          continue;
        }
        int selected = rows;
        if (filter != null) {
          filter.select(table.schema(), view.arrow(), dictionaries);
          selected = filter.count();
          if (selected == 0) {
            continue;
          }
        }
        ColumnVector[] out = new ColumnVector[columns.length];
        for (int i = 0; i < columns.length; i++) {
          ColumnVector vector = vectors.of(view.column(columns[i]));
          out[i] = selected == rows ? vector : new SelectedVector(vector, filter.rows(), selected);
        }
        current = new ColumnarBatch(out, selected);
        return true;
      }
      return false;
    } catch (QueryCancelledException e) {
      resources.checkKilled(); // a killed task reports as killed, not as failed
      throw e;
    }
  }

  @Override
  public ColumnarBatch get() {
    if (current == null) {
      throw new IllegalStateException("no batch: next() has not returned true");
    }
    return current;
  }

  @Override
  public void close() {
    current = null;
    resources.close();
  }
}
