package dev.memwall.tpch.query;

import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDatabase;

/**
 * One TPC-H query as a memwall physical plan, with the specification's validation parameters
 * (the same as the SQL text {@code dev/memwall/tpch/sql/qN.sql} DuckDB runs).
 *
 * <p>Contract: {@link #run} reads the database's tables (it never modifies or closes them), allocates
 * its result from {@code context.memory()} and hands it to the caller, who closes it; every other
 * buffer the plan allocates is freed before it returns, also when it fails. The result's columns are
 * in SELECT-list order and its rows in the query's ORDER BY order; decimals are scaled-int64
 * {@code DECIMAL} columns or FLOAT64, dates {@code DATE}, strings plain or dictionary-encoded.
 *
 * <p>Thread safety: implementations are stateless; {@link #run} may use up to
 * {@code context.threads()} threads and may be called concurrently on the same database.
 */
public interface TpchQuery {
  /** The TPC-H query number, 1 to 22. */
  int number();

  /**
   * Runs the query.
   *
   * @throws dev.memwall.core.memory.BudgetExceededException when the context's budget is too small
   */
  Table run(TpchDatabase database, ExecutionContext context);
}
