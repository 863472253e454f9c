package dev.memwall.tpch.run;

import java.io.Serializable;
import java.util.List;

/**
 * What the DuckDB child process ({@link DuckDbChild}) answers its parent ({@link DuckDbProcess}), one
 * Java-serialized object per request on its standard output.
 */
sealed interface DuckDbReply extends Serializable {
  /** Sent once, when the tables are loaded: the child waits for SQL from now on. */
  record Ready(String version) implements DuckDbReply {}

  /**
   * A query's rows, as DuckDB's JDBC driver gave them, and the child's own time for the query
   * (execution and fetching every row), which leaves out the trip of the rows to the parent.
   */
  record Rows(List<String> columns, List<List<Object>> rows, long nanos) implements DuckDbReply {}

  /** The request failed: a rejected query ({@code sql}), or the child cannot go on. */
  record Failed(String message, boolean sql) implements DuckDbReply {}
}
