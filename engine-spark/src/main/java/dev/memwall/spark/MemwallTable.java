package dev.memwall.spark;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The data set of one path (and table option), as a Spark table read in batches and written by batch
 * jobs (append or overwrite, {@link MemwallWriteBuilder}).
 *
 * <p>The schema is the one Spark passed: the files' own on a read, the query's on a write. A read
 * describes the files (lazily: a write to a new directory has none) and refuses a schema that is not
 * theirs. Immutable; thread safe.
 *
 * @param files the files a read reads, described on first use
 */
record MemwallTable(Path path, String table, StructType schema, Supplier<DataSetFiles> files)
    implements SupportsRead, SupportsWrite {

  @Override
  public String name() {
    return "memwall " + (table == null ? path.toString() : path + " (table " + table + ")");
  }

  @Override
  public Column[] columns() {
    return Arrays.stream(schema.fields())
        .map(field -> Column.create(field.name(), field.dataType(), field.nullable()))
        .toArray(Column[]::new);
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.TRUNCATE);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    DataSetFiles described = files.get();
    if (!described.schema().asNullable().equals(schema.asNullable())) {
      throw new IllegalArgumentException("memwall reads the files' own schema " + described.schema().simpleString()
          + ", not " + schema.simpleString() + " (" + described.describe() + ")");
    }
    return new MemwallScanBuilder(described, MemwallSettings.taskMemoryBytes(options));
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new MemwallWriteBuilder(path, table, info.schema(), MemwallSettings.taskMemoryBytes(info.options()));
  }
}
