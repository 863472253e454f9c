package dev.memwall.spark;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code memwall} data source: {@code spark.read.format("memwall").load(path)} reads Arrow IPC files
 * (memwall's TPC-H data sets and any Arrow IPC file or stream file) through memwall's zero-copy mapping,
 * as columnar batches Spark reads in place, one input partition per file. With
 * {@code .option("table", "lineitem")} it reads one table of a directory holding several
 * ({@code lineitem-1.arrow}, {@code lineitem-2.arrow}, ...). See {@link DataSetFiles} for which files,
 * {@link SparkTypes} for the types, {@link MemwallScanBuilder} for column pruning and filter push-down.
 * {@code df.write.format("memwall").mode("append" or "overwrite").save(path)} writes Arrow IPC files that
 * read back the same ({@link MemwallWriteBuilder}).
 *
 * <p>Paths are local file system paths (or {@code file:} URIs) that every executor can read at the same
 * place, as on one machine or a shared file system; the schema is the files' own (a user-specified
 * schema other than that is refused).
 *
 * <p>Registered under the short name {@code memwall} through {@code META-INF/services}. Thread safety:
 * Spark creates an instance per lookup; it keeps the files described for its last path.
 */
public final class MemwallDataSource implements TableProvider, DataSourceRegister {
  private DataSetFiles described;

  @Override
  public String shortName() {
    return "memwall";
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return files(options).schema();
  }

  /**
   * True, so that a write hands its query's schema to {@link #getTable} instead of Spark inferring one
   * from files that may not exist yet; a read with a schema of its own is refused unless it is the files'.
   */
  @Override
  public boolean supportsExternalMetadata() {
    return true;
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    if (partitioning.length > 0) {
      throw new IllegalArgumentException("memwall writes no partitioned data sets (partitionBy)");
    }
    CaseInsensitiveStringMap options = new CaseInsensitiveStringMap(properties);
    return new MemwallTable(path(options), options.get(MemwallSettings.TABLE), schema, () -> files(options));
  }

  private synchronized DataSetFiles files(CaseInsensitiveStringMap options) {
    Path path = path(options);
    String table = options.get(MemwallSettings.TABLE);
    if (described == null || !described.path().equals(path) || !java.util.Objects.equals(described.table(), table)) {
      described = DataSetFiles.of(path, table);
    }
    return described;
  }

  private static Path path(CaseInsensitiveStringMap options) {
    String path = options.get("path");
    if (path == null) {
      throw new IllegalArgumentException(options.containsKey("paths")
          ? "memwall reads one path (a directory or a file) per load, not several"
          : "memwall needs a path: spark.read.format(\"memwall\").load(\"/data/dir\")");
    }
    if (path.startsWith("file:")) {
      return Path.of(URI.create(path));
    }
    if (path.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
      throw new IllegalArgumentException("memwall maps local files; " + path + " is not one");
    }
    return Path.of(path);
  }
}
