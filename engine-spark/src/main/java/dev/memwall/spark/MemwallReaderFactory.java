package dev.memwall.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Makes the partition readers of a memwall scan on the executors: columnar only (memwall's data is
 * columnar; Spark adds its own columnar-to-row step where an operator needs rows).
 *
 * <p>Serializable: it carries the data set's Spark schema, the read schema, the pushed predicates (Spark's
 * serializable V2 predicates, translated again on the executor) and the memory each task asks for.
 * Thread safety: immutable.
 */
final class MemwallReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;

  private final StructType dataSchema;
  private final StructType readSchema;
  private final Predicate[] pushed;
  private final long taskMemoryBytes;

  MemwallReaderFactory(StructType dataSchema, StructType readSchema, Predicate[] pushed, long taskMemoryBytes) {
    this.dataSchema = dataSchema;
    this.readSchema = readSchema;
    this.pushed = pushed;
    this.taskMemoryBytes = taskMemoryBytes;
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return MemwallPartitionReader.open((MemwallInputPartition) partition, dataSchema, readSchema, pushed,
        taskMemoryBytes);
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    throw new UnsupportedOperationException("memwall scans are columnar: createColumnarReader");
  }
}
