package dev.memwall.tpch.run;

import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.sql.Memwall;
import dev.memwall.sql.SqlException;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.SubstraitPlans;
import dev.memwall.substrait.UnsupportedPlanException;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.verify.DuckDbOracle;

/**
 * A TPC-H query's plan taken from its SQL text rather than its hand-written class: the query's
 * template with the run's parameters substituted ({@link DuckDbOracle#tpchSql}) is planned by
 * engine-sql ({@link Memwall#prepare}: Isthmus, the Substrait consumer, its optimizer) and run over
 * the catalog's tables. Planning is part of the run, as it is for a SQL engine; it is a step of its own
 * ({@link #prepare}, then {@link #run}) so that the engine can time it apart.
 *
 * <p>Text the SQL path refuses throws {@link QueryRefusedException} with the reason before anything
 * runs; it is never run another way. Ownership: the catalog's tables stay the caller's; the result
 * is the caller's to close. Thread safety: no state.
 */
final class SqlPlans {
  private SqlPlans() {}

  /** The plan of the query's text with {@code parameters}, nothing run. */
  static SubstraitPlans.Prepared prepare(Catalog catalog, QueryParameters parameters) {
    try {
      return Memwall.prepare(catalog, DuckDbOracle.tpchSql(parameters));
    } catch (SqlException | UnsupportedPlanException e) {
      throw new QueryRefusedException(e.getMessage(), e);
    }
  }

  /** Runs {@code plan}; the caller closes the table. */
  static Table run(SubstraitPlans.Prepared plan, ExecutionContext context) {
    return SubstraitPlans.relation(plan, context).toTable();
  }
}
