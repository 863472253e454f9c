package dev.memwall.tpch.run;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.SubstraitPlans;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.verify.ResultComparator;
import java.util.List;

/**
 * memwall itself as a {@link QueryEngine}: each query's physical plan over a mapped database, on
 * {@code threads} threads, its result a memwall table. The plan is the query's hand-written one, or
 * with {@code sqlPlans} the one engine-sql makes of its SQL text ({@link SqlPlans}; a query whose
 * text the SQL path refuses throws {@link QueryRefusedException} and is not run by hand instead), and
 * the result then carries the planning time apart ({@link Result#planningNanos}).
 *
 * <p>Ownership: the database and memory stay the caller's; {@link #close} closes nothing.
 */
public final class MemwallEngine implements QueryEngine {
  private final TpchDatabase database;
  private final ExecutionContext context;
  private final Catalog sqlCatalog; // null: the hand-written plans

  public MemwallEngine(TpchDatabase database, EngineMemory memory, int threads) {
    this(database, memory, threads, false);
  }

  public MemwallEngine(TpchDatabase database, EngineMemory memory, int threads, boolean sqlPlans) {
    this.database = database;
    this.context = new ExecutionContext(memory, threads);
    this.sqlCatalog = sqlPlans ? TpchCatalog.of(database) : null;
  }

  @Override
  public String name() {
    return sqlCatalog == null ? "memwall (hand-written plans)" : "memwall";
  }

  /**
   * Runs the query's plan; with plans from SQL the result tells how long planning took
   * ({@link Result#planningNanos}, by {@link System#nanoTime}, the runner's clock).
   */
  @Override
  public Result run(TpchQuery query, QueryParameters parameters) {
    if (sqlCatalog == null) {
      return result(query.run(database, parameters, context), -1);
    }
    long start = System.nanoTime();
    SubstraitPlans.Prepared plan = SqlPlans.prepare(sqlCatalog, parameters);
    long planning = System.nanoTime() - start;
    return result(SqlPlans.run(plan, context), planning);
  }

  private static Result result(Table table, long planningNanos) {
    return new Result() {
      @Override
      public List<String> columns() {
        return table.schema().getFields().stream().map(field -> field.getName()).toList();
      }

      @Override
      public long rowCount() {
        return table.rowCount();
      }

      @Override
      public List<List<Object>> values() {
        return ResultComparator.rows(table);
      }

      @Override
      public long planningNanos() {
        return planningNanos;
      }

      @Override
      public void close() {
        table.close();
      }
    };
  }

  @Override
  public void close() {}
}
