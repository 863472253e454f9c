package dev.memwall.tpch.run;

import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.verify.DuckDbOracle;
import dev.memwall.tpch.verify.QueryResult;
import java.sql.SQLException;

/**
 * DuckDB as a {@link QueryEngine}: each query's SQL template, substituted, on a loaded
 * {@link DuckDbOracle}, its rows fetched over JDBC.
 *
 * <p>Ownership: the oracle stays the caller's; {@link #close} closes nothing.
 */
public final class DuckDbEngine implements QueryEngine {
  private final DuckDbOracle oracle;
  private final String name;

  public DuckDbEngine(DuckDbOracle oracle) throws SQLException {
    this.oracle = oracle;
    this.name = "DuckDB " + oracle.runSql("SELECT version()").rows().getFirst().getFirst();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Result run(TpchQuery query, QueryParameters parameters) throws SQLException {
    QueryResult result = oracle.runSql(DuckDbOracle.tpchSql(parameters));
    return Result.of(result.columns(), result.rows());
  }

  @Override
  public void close() {}
}
