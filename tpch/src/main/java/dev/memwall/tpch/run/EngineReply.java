package dev.memwall.tpch.run;

import java.io.Serializable;
import java.util.List;

/**
 * What an engine's child process ({@link EngineChild}) answers its parent ({@link EngineProcess}), one
 * Java-serialized object per request on its standard output.
 */
sealed interface EngineReply extends Serializable {
  /** Sent once, when the engine is open (for DuckDB: its tables loaded): its name; requests may come now. */
  record Ready(String name) implements EngineReply {}

  /**
   * A query's rows, as the engine gave them, and the child's own time for the query (for DuckDB its
   * execution and fetching every row over JDBC; for another engine the call that ran it and its rows
   * as Java objects), which leaves out the trip of the rows to the parent.
   */
  record Rows(List<String> columns, List<List<Object>> rows, long nanos) implements EngineReply {}

  /** The child's JIT compilers are idle ({@link EngineRequest.AwaitIdle}), or stayed busy past the wait's limit. */
  record Idle() implements EngineReply {}

  /** The request failed: a query the engine rejected ({@code rejected}), or the child cannot go on. */
  record Failed(String message, boolean rejected) implements EngineReply {}
}
