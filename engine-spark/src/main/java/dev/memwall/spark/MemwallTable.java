package dev.memwall.spark;

import java.util.Arrays;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The data set of one load path, as a Spark table that can be read in batches. Immutable; thread safe.
 */
final class MemwallTable implements SupportsRead {
  private final DataSetFiles files;

  MemwallTable(DataSetFiles files) {
    this.files = files;
  }

  @Override
  public String name() {
    return "memwall " + files.describe();
  }

  @Override
  public Column[] columns() {
    return Arrays.stream(files.schema().fields())
        .map(field -> Column.create(field.name(), field.dataType(), field.nullable()))
        .toArray(Column[]::new);
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return new MemwallScanBuilder(files, MemwallSettings.taskMemoryBytes(options));
  }
}
