package dev.memwall.spark;

import dev.memwall.core.vector.Table;
import org.apache.spark.sql.connector.read.InputPartition;

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
   * This partition's batches of {@code file}, the whole file as mapped in the task, as a table that
   * borrows them (closing it frees nothing).
   *
   * @throws IllegalStateException naming the file when it changed since the driver planned the scan
   */
  Table batchesOf(Table file) {
    if (file.rowCount() != fileRows || file.roots().size() < firstBatch + batches) {
      throw new IllegalStateException("memwall: " + path + " changed since the scan was planned (now "
          + file.rowCount() + " rows in " + file.roots().size() + " record batches, planned " + fileRows
          + " rows and batches " + firstBatch + " to " + (firstBatch + batches - 1) + ")");
    }
    return Table.borrow(file.schema(), file.roots().subList(firstBatch, firstBatch + batches), file.provider());
  }
}
