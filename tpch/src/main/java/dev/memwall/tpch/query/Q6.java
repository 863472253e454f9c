package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.decimal;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDatabase;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;

/**
 * TPC-H Q6, the forecasting revenue change: a selective scan of lineitem (~2% of rows) summing
 * one product. Parameters DATE, DISCOUNT, QUANTITY (validation: 1994-01-01, 0.06, 24).
 *
 * <pre>
 * select sum(l_extendedprice * l_discount) as revenue from lineitem
 * where l_shipdate &gt;= date '1994-01-01' and l_shipdate &lt; date '1994-01-01' + interval '1' year
 *   and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity &lt; 24
 * </pre>
 */
public final class Q6 implements TpchQuery {
  @Override
  public int number() {
    return 6;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    return plan(Plan.scan(db.table("lineitem")), parameters).execute(context);
  }

  /** The query over {@code lineitem}, a scan of a table or of a stream of its batches. */
  public static Plan plan(Plan lineitem, QueryParameters parameters) {
    LocalDate from = parameters.date("DATE");
    BigDecimal discount = parameters.decimal("DISCOUNT");
    BigDecimal cent = new BigDecimal("0.01");
    return lineitem
        .filter(and(
            col("l_shipdate").ge(date(from)),
            col("l_shipdate").lt(date(from.plusYears(1))),
            col("l_discount").between(decimal(discount.subtract(cent)), decimal(discount.add(cent))),
            col("l_quantity").lt(lit(parameters.integer("QUANTITY")))))
        .aggregate(List.of(), Aggregate.sum(col("l_extendedprice").mul(col("l_discount")), "revenue"));
  }
}
