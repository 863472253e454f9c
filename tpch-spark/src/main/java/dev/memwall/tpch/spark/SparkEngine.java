package dev.memwall.tpch.spark;

import dev.memwall.spark.MemwallExtensions;
import dev.memwall.spark.MemwallSettings;
import dev.memwall.tpch.data.TpchSchema;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.run.QueryEngine;
import dev.memwall.tpch.verify.DuckDbOracle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * TPC-H as Spark SQL over a memwall data set: the eight tables are temporary views of
 * {@code spark.read.format("memwall")}, and each query is the same SQL template DuckDB runs, with the same
 * parameters, collected to the driver. {@code accelerated} runs it with memwall's extension
 * ({@link MemwallExtensions}, replacing Spark operators where memwall supports them); otherwise the same
 * session runs Spark alone ({@link MemwallSettings#ACCELERATION} off), reading the same files through the
 * same data source, so the two differ only in who runs the operators.
 *
 * <p>Sessions: every engine in the JVM shares one {@code SparkContext} ({@link SharedSpark}); each has a
 * session of its own ({@link SparkSession#newSession}) with its views and its acceleration setting. The
 * context stops when the last engine closes.
 *
 * <p>Settings every session gets: {@code spark.sql.shuffle.partitions} = the thread count (Spark's default of
 * 200 is for clusters; adaptive execution still coalesces), no UI, {@code java.time} dates. Thread safety:
 * not thread-safe, as the runner uses it.
 */
final class SparkEngine implements QueryEngine {
  private final SparkSession session;
  private final String name;
  private boolean closed;

  private SparkEngine(SparkSession session, String name) {
    this.session = session;
    this.name = name;
  }

  /** An engine over the data set in {@code dataDirectory}; see the class comment. */
  static SparkEngine open(Path dataDirectory, String master, int threads, boolean accelerated) {
    SparkSession session = SharedSpark.acquire(master, threads).newSession();
    try {
      session.conf().set(MemwallSettings.ACCELERATION, accelerated);
      session.conf().set("spark.sql.shuffle.partitions", threads);
      session.conf().set("spark.sql.datetime.java8API.enabled", true);
      for (String table : TpchSchema.TABLE_NAMES) {
        session.read().format("memwall").option(MemwallSettings.TABLE, table).load(dataDirectory.toString())
            .createOrReplaceTempView(table);
      }
      return new SparkEngine(session, "Spark " + session.version() + (accelerated ? " + memwall" : ""));
    } catch (RuntimeException e) {
      SharedSpark.release();
      throw e;
    }
  }

  @Override
  public String name() {
    return name;
  }

  /** The engine's session, for tests that change its settings. */
  SparkSession session() {
    return session;
  }

  /** The query's SQL, as Spark plans it (for EXPLAIN and tests). */
  Dataset<Row> dataset(QueryParameters parameters) {
    return session.sql(DuckDbOracle.tpchStatement(parameters));
  }

  @Override
  public Result run(TpchQuery query, QueryParameters parameters) {
    Dataset<Row> dataset = dataset(parameters); // a fresh Dataset each run: a reused one reuses its shuffles
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
    if (!closed) {
      closed = true;
      SharedSpark.release();
    }
  }
}
