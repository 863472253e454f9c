package dev.memwall.spark;

import dev.memwall.core.expr.Binder;
import dev.memwall.spark.DataSetFiles.FileInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Builds a scan of a memwall data set with what Spark pushes down:
 *
 * <ul>
 *   <li>column pruning: only the columns Spark needs become column vectors (the others are never
 *       touched: a mapped file's pages of unread columns are not even read from disk);
 *   <li>filters, as data source V2 predicates: those {@link PredicateTranslator} translates, and whose
 *       translation memwall's binder accepts for every file's schema, are pushed and evaluated by
 *       memwall's filter kernels in the partition readers; Spark does not evaluate them again. The rest
 *       are returned to Spark, which filters the rows the scan returns; why each was not pushed is in the
 *       scan's description (shown by {@code EXPLAIN}).
 * </ul>
 *
 * <p>Thread safety: none; Spark uses a builder from one thread.
 */
final class MemwallScanBuilder implements SupportsPushDownRequiredColumns, SupportsPushDownV2Filters {
  private final DataSetFiles files;
  private final long taskMemoryBytes;
  private StructType required;
  private final List<Predicate> pushed = new ArrayList<>();
  private final Map<String, String> notPushed = new LinkedHashMap<>();

  MemwallScanBuilder(DataSetFiles files, long taskMemoryBytes) {
    this.files = files;
    this.taskMemoryBytes = taskMemoryBytes;
    this.required = files.schema();
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    this.required = requiredSchema;
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    Map<String, DataType> columns = new LinkedHashMap<>();
    for (StructField field : files.schema().fields()) {
      columns.put(field.name(), field.dataType());
    }
    List<Predicate> rest = new ArrayList<>();
    for (Predicate predicate : predicates) {
      PredicateTranslator.Result result = PredicateTranslator.translate(predicate, columns);
      String problem = result.translated() ? bindProblem(result) : result.reason();
      if (problem == null) {
        pushed.add(predicate);
      } else {
        rest.add(predicate);
        notPushed.put(predicate.describe(), problem);
      }
    }
    return rest.toArray(Predicate[]::new);
  }

  /** Why memwall's binder refuses the translation for some file's schema, or null when it binds for all. */
  private String bindProblem(PredicateTranslator.Result result) {
    for (FileInfo file : files.files()) {
      try {
        new Binder(file.arrowSchema()).bindFilter(result.expr());
      } catch (RuntimeException e) {
        return "memwall cannot bind it over " + file.path().getFileName() + ": " + e.getMessage();
      }
    }
    return null;
  }

  @Override
  public Predicate[] pushedPredicates() {
    return pushed.toArray(Predicate[]::new);
  }

  @Override
  public Scan build() {
    return new MemwallScan(files, required, List.copyOf(pushed), new LinkedHashMap<>(notPushed), taskMemoryBytes,
        InputSplits.of(SparkSession.active()));
  }
}
