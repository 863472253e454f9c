package dev.memwall.spark;

import java.nio.file.Path;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A write of a Spark query into a memwall data set: {@code mode("append")} adds files,
 * {@code mode("overwrite")} replaces the data set's files ({@link #truncate}). Spark's other save modes
 * (the default {@code errorifexists}, {@code ignore}) are refused by Spark itself for DataSource V2 tables
 * that are not in a catalog.
 *
 * <p>What is written ({@link MemwallBatchWrite}): one Arrow IPC file per task, {@code <table>-<n>.arrow}
 * with the {@value MemwallSettings#TABLE} option, else {@code part-<n>.arrow}, numbered after the files
 * already there; columns as {@link SparkTypes#arrowField} says. Bad input: a column of a type the
 * connector does not read back throws {@link IllegalArgumentException} naming it, before any task runs.
 */
final class MemwallWriteBuilder implements WriteBuilder, SupportsTruncate {
  /** The part name prefix without the table option. */
  static final String DEFAULT_PREFIX = "part";

  private final Path directory;
  private final String table;
  private final StructType schema;
  private final long taskMemoryBytes;
  private boolean truncate;

  MemwallWriteBuilder(Path directory, String table, StructType schema, long taskMemoryBytes) {
    this.directory = directory;
    this.table = table;
    this.schema = schema;
    this.taskMemoryBytes = taskMemoryBytes;
    for (StructField column : schema.fields()) {
      SparkTypes.arrowField(column); // refuses what a read would not give back
    }
  }

  @Override
  public WriteBuilder truncate() {
    truncate = true;
    return this;
  }

  @Override
  public Write build() {
    return new Write() {
      @Override
      public String description() {
        return "memwall " + (truncate ? "overwrite of " : "append to ") + directory
            + (table == null ? "" : " (table " + table + ")");
      }

      @Override
      public BatchWrite toBatch() {
        return MemwallBatchWrite.start(directory, table, table == null ? DEFAULT_PREFIX : table, schema, truncate,
            taskMemoryBytes);
      }
    };
  }
}
