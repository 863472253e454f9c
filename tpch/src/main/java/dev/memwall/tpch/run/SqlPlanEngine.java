package dev.memwall.tpch.run;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.sql.Memwall;
import dev.memwall.sql.SqlException;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.SubstraitPlans;
import dev.memwall.substrait.UnsupportedPlanException;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.verify.DuckDbOracle;

/**
 * memwall with each query's plan taken from its SQL text rather than its hand-written class: the
 * query's template with the run's parameters substituted ({@link DuckDbOracle#tpchSql}) is planned
 * by engine-sql ({@link Memwall#prepare}: Isthmus, the Substrait consumer, its optimizer) and run
 * over the database's tables. Planning is part of each run's time, as it is for a SQL engine.
 *
 * <p>A query whose text the SQL path refuses throws {@link QueryRefusedException} with the reason
 * before anything runs; it is never run by hand instead. Ownership: the database and memory stay
 * the caller's; {@link #close} closes nothing. Thread safety: as {@link MemwallEngine}.
 */
public final class SqlPlanEngine implements QueryEngine {
  private final Catalog catalog;
  private final ExecutionContext context;

  public SqlPlanEngine(TpchDatabase database, EngineMemory memory, int threads) {
    this.catalog = Catalog.of(database.tables());
    this.context = new ExecutionContext(memory, threads);
  }

  @Override
  public String name() {
    return "memwall (plans from SQL)";
  }

  @Override
  public Result run(TpchQuery query, QueryParameters parameters) {
    SubstraitPlans.Prepared plan;
    try {
      plan = Memwall.prepare(catalog, DuckDbOracle.tpchSql(parameters));
    } catch (SqlException | UnsupportedPlanException e) {
      throw new QueryRefusedException(e.getMessage(), e);
    }
    Table table = SubstraitPlans.relation(plan, context).toTable();
    return MemwallEngine.result(table);
  }

  @Override
  public void close() {}
}
