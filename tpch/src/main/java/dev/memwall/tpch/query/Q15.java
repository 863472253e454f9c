package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.time.LocalDate;
import java.util.List;

/**
 * TPC-H Q15, the top supplier query: the suppliers with the largest revenue in a quarter.
 * Parameter DATE (validation: 1996-01-01).
 *
 * <p>Plan: the view {@code revenue} is materialized once (an aggregation of the quarter's
 * lineitems by supplier); the uncorrelated scalar subquery (its maximum) runs over it first, and
 * the suppliers whose revenue equals that maximum are joined with supplier.
 *
 * <pre>
 * create view revenue (supplier_no, total_revenue) as
 *   select l_suppkey, sum(l_extendedprice * (1 - l_discount)) from lineitem
 *   where l_shipdate &gt;= date '[DATE]' and l_shipdate &lt; date '[DATE]' + interval '3' month
 *   group by l_suppkey;
 * select s_suppkey, s_name, s_address, s_phone, total_revenue
 * from supplier, revenue
 * where s_suppkey = supplier_no and total_revenue = (select max(total_revenue) from revenue)
 * order by s_suppkey;
 * </pre>
 */
public final class Q15 implements TpchQuery {
  @Override
  public int number() {
    return 15;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    LocalDate from = parameters.date("DATE");
    try (Table revenue = Relation.scan(db.table("lineitem"), context)
        .filter(and(col("l_shipdate").ge(date(from)), col("l_shipdate").lt(date(from.plusMonths(3)))))
        .aggregate(List.of(col("l_suppkey").as("supplier_no")),
            Aggregate.sum(col("l_extendedprice").mul(lit(1).sub(col("l_discount"))), "total_revenue"))
        .toTable()) {
      Expr isTop;
      try (Table max = Relation.scan(revenue, context)
          .aggregate(List.of(), Aggregate.max(col("total_revenue"), "max_revenue")).toTable()) {
        isTop = ScalarSubquery.value(max).map(top -> col("total_revenue").eq(top))
            .orElseGet(ScalarSubquery::comparedWithNull);
      }
      Relation topSuppliers = Relation.scan(revenue, context).filter(isTop);
      return Relation.scan(db.table("supplier"), context)
          .join(topSuppliers).on("s_suppkey", "supplier_no")
          .keep("s_suppkey", "s_name", "s_address", "s_phone", "total_revenue")
          .orderBy(SortKey.asc("s_suppkey"))
          .toTable();
    }
  }
}
