package dev.memwall.spark;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A planned scan of a memwall data set: the columns Spark reads, the predicates memwall evaluates, input
 * partitions of consecutive record batches cut as Spark cuts files ({@link InputSplits}), and statistics for
 * Spark's optimizer.
 *
 * <p>Statistics: the row count of the files (exact without pushed filters; with them an upper bound,
 * as memwall does not estimate selectivity before reading) and the bytes the read columns occupy in the
 * files (their Arrow buffers, dictionaries included), which is what Spark's broadcast and join choices
 * compare.
 *
 * <p>Immutable; thread safe.
 */
final class MemwallScan implements Scan, Batch, SupportsReportStatistics {
  private final DataSetFiles files;
  private final StructType readSchema;
  private final List<Predicate> pushed;
  private final Map<String, String> notPushed;
  private final long taskMemoryBytes;
  private final InputSplits splits;

  MemwallScan(DataSetFiles files, StructType readSchema, List<Predicate> pushed, Map<String, String> notPushed,
      long taskMemoryBytes, InputSplits splits) {
    this.files = files;
    this.readSchema = readSchema;
    this.pushed = pushed;
    this.notPushed = java.util.Collections.unmodifiableMap(notPushed);
    this.taskMemoryBytes = taskMemoryBytes;
    this.splits = splits;
  }

  @Override
  public StructType readSchema() {
    return readSchema;
  }

  @Override
  public String description() {
    StringBuilder text = new StringBuilder("MemwallScan ").append(files.describe())
        .append(", ").append(files.files().size()).append(" files, ").append(files.rows()).append(" rows")
        .append(", columns ").append(columnNames());
    if (!pushed.isEmpty()) {
      text.append(", memwall filters ").append(pushed.stream().map(Predicate::describe).toList());
    }
    if (!notPushed.isEmpty()) {
      text.append(", left to Spark ").append(notPushed.entrySet().stream()
          .map(e -> e.getKey() + " (" + e.getValue() + ")").collect(Collectors.joining("; ", "[", "]")));
    }
    if (!files.leftOut().isEmpty()) {
      text.append(", columns memwall does not read ").append(files.leftOut().keySet());
    }
    return text.toString();
  }

  @Override
  public String toString() {
    return description();
  }

  /** The predicates memwall evaluates. */
  List<Predicate> pushed() {
    return pushed;
  }

  /** The predicates left to Spark, with why. */
  Map<String, String> notPushed() {
    return notPushed;
  }

  /** The data set read. */
  DataSetFiles files() {
    return files;
  }

  /** The bytes each task asks Spark for. */
  long taskMemoryBytes() {
    return taskMemoryBytes;
  }

  private List<String> columnNames() {
    return Arrays.stream(readSchema.fields()).map(StructField::name).toList();
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return splits.split(files.files(), columnNames()).toArray(InputPartition[]::new);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new MemwallReaderFactory(files.schema(), readSchema, pushed.toArray(Predicate[]::new), taskMemoryBytes);
  }

  @Override
  public Statistics estimateStatistics() {
    long rows = files.rows();
    long bytes = Math.max(1, files.bytes(columnNames()));
    return new Statistics() {
      @Override
      public OptionalLong sizeInBytes() {
        return OptionalLong.of(bytes);
      }

      @Override
      public OptionalLong numRows() {
        return OptionalLong.of(rows);
      }
    };
  }
}
