package dev.memwall.tpch.run;

import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchQuery;
import java.sql.SQLException;
import java.util.List;

/**
 * An engine the {@link TpchRunner} times and verifies: memwall's own plans ({@link MemwallEngine}), DuckDB
 * ({@link dev.memwall.tpch.verify.DuckDbOracle}), or one found on the class path through a
 * {@link QueryEngineProvider} (Spark, from module {@code tpch-spark}).
 *
 * <p>Contract: {@link #run} runs one query to completion, its whole result materialized in the engine's
 * natural form (a memwall table, fetched JDBC rows, collected Spark rows), so that its time is what a
 * user of that engine waits for. The engine is the caller's to close. Thread safety: not required; the
 * runner uses an engine from one thread.
 */
public interface QueryEngine extends AutoCloseable {
  /** How reports name the engine, e.g. {@code memwall}, {@code DuckDB v1.4.1}, {@code Spark 4.2.0 + memwall}. */
  String name();

  /**
   * Runs TPC-H query {@code query} with {@code parameters} (the SQL engines substitute them into the
   * query's SQL template; memwall runs the query's plan).
   *
   * @throws SQLException when a SQL engine rejects or fails the query
   */
  Result run(TpchQuery query, QueryParameters parameters) throws SQLException;

  /**
   * Returns once what the engine's runs left working in its own process (a JIT compiling what they gave
   * it) is idle, so that it takes no core from another engine timed next. An engine in the caller's
   * process does nothing (the default): the caller can wait for its own JVM's compilers.
   */
  default void awaitIdle() {}

  /** Frees what the engine holds (a Spark session, ...); what it was given stays the caller's. */
  @Override
  void close();

  /** One run's rows. Closing it frees what the engine allocated for them: read {@link #values} first. */
  interface Result extends AutoCloseable {
    /** A result of rows already fetched into Java objects. */
    static Result of(List<String> columns, List<List<Object>> rows) {
      return of(columns, rows, -1);
    }

    /** {@link #of} rows whose time {@code engineNanos} the engine measured where it ran ({@link #engineNanos}). */
    static Result of(List<String> columns, List<List<Object>> rows, long engineNanos) {
      List<String> names = List.copyOf(columns);
      List<List<Object>> values = List.copyOf(rows);
      return new Result() {
        @Override
        public List<String> columns() {
          return names;
        }

        @Override
        public long rowCount() {
          return values.size();
        }

        @Override
        public List<List<Object>> values() {
          return values;
        }

        @Override
        public long engineNanos() {
          return engineNanos;
        }
      };
    }

    /** The column labels in SELECT-list order. */
    List<String> columns();

    /** The number of rows. */
    long rowCount();

    /**
     * The rows as Java objects in SELECT-list order (BigDecimal or Double for decimals, a date type,
     * String, Integer or Long), as {@link dev.memwall.tpch.verify.ResultComparator} compares them.
     */
    List<List<Object>> values();

    /**
     * The run's time as the engine measured it where it ran, or -1 (the default) when the caller's
     * clock around {@link QueryEngine#run} is the time. An engine in another process measures its
     * own, so that the trip of the rows back is not counted.
     */
    default long engineNanos() {
      return -1;
    }

    /**
     * The part of the run's time spent planning (a SQL engine's text to its plan, before anything of the
     * query ran), included in the run's time and measured by the same clock; -1 (the default) when the
     * engine does not tell planning apart.
     */
    default long planningNanos() {
      return -1;
    }

    @Override
    default void close() {}
  }
}
