package dev.memwall.tpch.run;

import dev.memwall.tpch.query.QueryParameters;
import java.io.Serializable;

/** What {@link EngineProcess} asks its child ({@link EngineChild}), one Java-serialized object per request. */
sealed interface EngineRequest extends Serializable {
  /** Run TPC-H query {@code parameters.query()} with these parameters. */
  record Query(QueryParameters parameters) implements EngineRequest {}

  /** Run this SQL text as it is (DuckDB only: a check that a rejected statement leaves the child running). */
  record Sql(String sql) implements EngineRequest {}

  /** Reply {@link EngineReply.Idle} once the child's JIT compilers are idle ({@link CompilerThreads}). */
  record AwaitIdle() implements EngineRequest {}
}
