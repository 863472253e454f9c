package dev.memwall.tpch.query;

import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDatabase;

/**
 * One TPC-H query as a memwall physical plan over its substitution parameters
 * ({@link TpchParameters}: the validation values or random ones; DuckDB runs the same parameters
 * substituted into the SQL template {@code dev/memwall/tpch/sql/qN.sql}).
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
   * Runs the query with {@code parameters}.
   *
   * @param parameters this query's parameters (a plan reads them by name; a name the parameters lack
   *     throws {@link IllegalArgumentException})
   * @throws dev.memwall.core.memory.BudgetExceededException when the context's budget is too small
   */
  Table run(TpchDatabase database, QueryParameters parameters, ExecutionContext context);

  /** Runs the query with the specification's validation parameters at the database's scale factor. */
  default Table run(TpchDatabase database, ExecutionContext context) {
    return run(database, TpchParameters.validation(number(), database.scaleFactor()), context);
  }
}
