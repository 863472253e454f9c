package dev.memwall.tpch.comet;

import dev.memwall.tpch.data.TpchSchema;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.run.QueryEngine;
import dev.memwall.tpch.verify.DuckDbOracle;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * TPC-H as Spark SQL with Apache DataFusion Comet, as Comet's users run it: Comet's plugin and native shuffle
 * on a local Spark, the eight tables temporary views of Parquet files (a {@code ParquetCopy} of the data
 * set), which Comet scans natively. Each query is the SQL template DuckDB and the {@code spark} engine run,
 * with the same parameters and session settings ({@code spark.sql.shuffle.partitions} = the thread count,
 * no UI, {@code java.time} dates), collected to the driver.
 *
 * <p>Comet falls back to Spark silently when it cannot start (a missing native library, off-heap memory
 * off); {@link #open} checks that a scan is Comet's and fails by name otherwise, so that a report never
 * calls plain Spark "Comet".
 *
 * <p>Memory: Comet's native operators draw on Spark's off-heap pool, {@value #OFF_HEAP} here (Comet's
 * guide: every deployment sizes it); the heap is the JVM's. Thread safety: not thread-safe, as the runner
 * uses it. Ownership: {@link #close} stops the Spark context this engine started; one per JVM.
 */
final class CometEngine implements QueryEngine {
  static final String OFF_HEAP = "4g";

  private final SparkSession session;
  private final String name;

  private CometEngine(SparkSession session, String name) {
    this.session = session;
    this.name = name;
  }

  /** Comet on {@code threads} local cores over the Parquet files in {@code parquetDirectory}. */
  static CometEngine open(Path parquetDirectory, int threads) {
    SparkSession session = SparkSession.builder()
        .master("local[" + threads + "]")
        .appName("memwall tpch: Comet")
        .config("spark.plugins", "org.apache.spark.CometPlugin")
        .config("spark.shuffle.manager", "org.apache.spark.sql.comet.execution.shuffle.CometShuffleManager")
        .config("spark.memory.offHeap.enabled", "true")
        .config("spark.memory.offHeap.size", OFF_HEAP)
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", Integer.toString(threads))
        .config("spark.sql.datetime.java8API.enabled", "true")
        .getOrCreate();
    try {
      for (String table : TpchSchema.TABLE_NAMES) {
        session.read().parquet(parquetDirectory.resolve(table + ".parquet").toString()).createOrReplaceTempView(table);
      }
      String scan = session.table("region").queryExecution().executedPlan().toString();
      if (!scan.contains("CometNativeScan") && !scan.contains("CometScan")) {
        throw new IllegalStateException("Comet is not running Spark's scans (Spark's log says why), so this would "
            + "be Spark " + session.version() + " alone; the plan of a scan was:\n" + scan);
      }
      return new CometEngine(session, "Spark " + session.version() + " + Comet " + cometVersion());
    } catch (RuntimeException e) {
      session.stop();
      throw e;
    }
  }

  /** Comet's version, from its jar's Maven metadata. */
  static String cometVersion() {
    String resource = "/META-INF/maven/org.apache.datafusion/comet-spark-spark4.1_2.13/pom.properties";
    try (InputStream in = org.apache.spark.CometPlugin.class.getResourceAsStream(resource)) {
      if (in == null) {
        return "(version unknown)";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "(version unknown)");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String name() {
    return name;
  }

  /**
   * Runs the query's SQL and copies its rows, as the {@code spark} engine of module tpch-spark does; that
   * module is built on Spark 4.2, which cannot share this class path, so the few lines are its own here.
   */
  @Override
  public Result run(TpchQuery query, QueryParameters parameters) {
    // a fresh Dataset each run: a reused one reuses its shuffles
    Dataset<Row> dataset = session.sql(DuckDbOracle.tpchStatement(parameters));
    List<Row> collected = dataset.collectAsList();
    List<List<Object>> rows = new ArrayList<>(collected.size());
    for (Row row : collected) {
      List<Object> values = new ArrayList<>(row.size());
      for (int i = 0; i < row.size(); i++) {
        values.add(row.get(i));
      }
      rows.add(values);
    }
    return Result.of(Arrays.asList(dataset.columns()), rows);
  }

  @Override
  public void close() {
    session.stop();
  }
}
