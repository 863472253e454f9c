package dev.memwall.spark;

import dev.memwall.spark.DataSetFiles.FileInfo;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.RuntimeConfig;
import org.apache.spark.sql.SparkSession;
import scala.Option;

/**
 * How a memwall scan cuts its files into input partitions: runs of consecutive record batches of one
 * file, each holding at most {@link #maxSplitBytes} of the columns read (a single larger batch stays
 * whole), so that a data set of a few big files still keeps every core busy, as Spark's own file
 * sources split files ({@code FilePartition.maxSplitBytes}, with the same settings).
 *
 * <p>The bytes counted are the read columns' Arrow buffers, not the file's length: memwall maps files and
 * touches only the columns a query reads. Partitions never span files (each task maps one file).
 *
 * @param maxPartitionBytes {@code spark.sql.files.maxPartitionBytes} (default 128 MiB)
 * @param openCostBytes {@code spark.sql.files.openCostInBytes} (default 4 MiB): what opening a file is
 *     counted as, so that many small files are not each worth a core
 * @param minPartitions {@code spark.sql.files.minPartitionNum}, by default Spark's default parallelism
 */
record InputSplits(long maxPartitionBytes, long openCostBytes, int minPartitions) {
  InputSplits {
    if (maxPartitionBytes <= 0 || openCostBytes < 0 || minPartitions < 1) {
      throw new IllegalArgumentException("memwall: bad split settings " + maxPartitionBytes + ", " + openCostBytes
          + ", " + minPartitions);
    }
  }

  /** The settings of {@code session}'s configuration. */
  static InputSplits of(SparkSession session) {
    RuntimeConfig conf = session.conf();
    long maxPartitionBytes = MemwallSettings.parseBytes("spark.sql.files.maxPartitionBytes",
        conf.getOption("spark.sql.files.maxPartitionBytes").getOrElse(() -> "128m"));
    long openCostBytes = MemwallSettings.parseBytes("spark.sql.files.openCostInBytes",
        conf.getOption("spark.sql.files.openCostInBytes").getOrElse(() -> "4m"));
    Option<String> minPartitions = conf.getOption("spark.sql.files.minPartitionNum");
    int partitions = minPartitions.isDefined() ? Integer.parseInt(minPartitions.get().trim())
        : session.sparkContext().defaultParallelism();
    return new InputSplits(maxPartitionBytes, openCostBytes, Math.max(1, partitions));
  }

  /**
   * Spark's rule: {@code min(maxPartitionBytes, max(openCostBytes, bytesPerCore))}, where
   * {@code bytesPerCore} is the data set's bytes (plus the open cost of each file) over
   * {@link #minPartitions}.
   */
  long maxSplitBytes(long totalBytes, int files) {
    long bytesPerCore = (totalBytes + (long) files * openCostBytes) / minPartitions;
    return Math.min(maxPartitionBytes, Math.max(openCostBytes, bytesPerCore));
  }

  /** The input partitions of {@code files} reading {@code columns}, in file and batch order. */
  List<MemwallInputPartition> split(List<FileInfo> files, List<String> columns) {
    long total = 0;
    for (FileInfo file : files) {
      for (int batch = 0; batch < file.batchRows().length; batch++) {
        total += file.batchBytes(batch, columns);
      }
    }
    long maxSplit = maxSplitBytes(total, files.size());
    List<MemwallInputPartition> partitions = new ArrayList<>();
    for (FileInfo file : files) {
      String path = file.path().toString();
      int batches = file.batchRows().length;
      if (batches == 0) {
        continue; // a file of no record batches has nothing to read
      }
      int first = 0;
      long bytes = 0;
      long rows = 0;
      for (int batch = 0; batch < batches; batch++) {
        long batchBytes = file.batchBytes(batch, columns);
        if (batch > first && bytes + batchBytes > maxSplit) {
          partitions.add(new MemwallInputPartition(path, file.rows(), first, batch - first, rows));
          first = batch;
          bytes = 0;
          rows = 0;
        }
        bytes += batchBytes;
        rows += file.batchRows()[batch];
      }
      partitions.add(new MemwallInputPartition(path, file.rows(), first, batches - first, rows));
    }
    return partitions;
  }
}
