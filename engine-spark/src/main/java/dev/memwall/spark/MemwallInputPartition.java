package dev.memwall.spark;

import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.types.StructType;

/**
 * What one task of a memwall scan reads: a run of consecutive record batches of one file ({@link InputSplits}).
 * Serializable (Spark ships it to the executor).
 *
 * @param path the file, a local path every executor reads at the same place
 * @param fileRows the whole file's row count, as the driver found it (a changed file is refused)
 * @param firstBatch the first record batch read, counted from 0
 * @param batches how many record batches are read, at least 1
 * @param rows the rows of those batches
 */
record MemwallInputPartition(String path, long fileRows, int firstBatch, int batches, long rows)
    implements InputPartition {
  /**
   * Maps this partition's file in the task and returns its batches, as a table that borrows them from
   * the mapping {@code resources} own: the file mapped without validation, then only this partition's
   * batches of the columns the task reads validated ({@link ArrowFiles#checkStructure}), so that a task
   * pays for what it reads.
   *
   * @param dataSchema the data set's Spark schema, as planned on the driver
   * @param columns the columns the task reads (its output and its predicates' and aggregates' inputs)
   * @throws IllegalStateException naming the file when it changed since the driver planned the scan
   * @throws IOException when it cannot be mapped, or is corrupt (a {@code CorruptArrowFileException}
   *     naming file, batch and column)
   */
  Table read(TaskResources resources, StructType dataSchema, Collection<String> columns) throws IOException {
    Path file = Path.of(path);
    Table mapped = resources.own(ArrowFiles.mapTrusted(file, resources.memory()));
    StructType fileSchema = SparkTypes.of(mapped.schema(), new HashMap<>());
    if (!fileSchema.equals(dataSchema) || mapped.rowCount() != fileRows
        || mapped.roots().size() < firstBatch + batches) {
      throw new IllegalStateException("memwall: " + path + " changed since the scan was planned (now "
          + mapped.rowCount() + " rows in " + mapped.roots().size() + " record batches of " + fileSchema.simpleString()
          + ", planned " + fileRows + " rows with batches " + firstBatch + " to " + (firstBatch + batches - 1) + " of "
          + dataSchema.simpleString() + ")");
    }
    Table part = Table.borrow(mapped.schema(), mapped.roots().subList(firstBatch, firstBatch + batches),
        mapped.provider());
    ArrowFiles.checkStructure(file, part, firstBatch, columns);
    return part;
  }
}
