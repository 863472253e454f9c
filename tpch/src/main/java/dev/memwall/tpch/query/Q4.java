package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;

import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.time.LocalDate;
import java.util.List;

/**
 * TPC-H Q4, the order priority checking query: how many of one quarter's orders had at least one
 * lineitem received after its commit date, per priority. The EXISTS subquery is a semi join of
 * the quarter's orders with the late lineitems (each order counted once however many of its
 * lineitems are late). Parameter DATE (validation: 1993-07-01).
 *
 * <pre>
 * select o_orderpriority, count(*) as order_count
 * from orders
 * where o_orderdate &gt;= date '1993-07-01' and o_orderdate &lt; date '1993-07-01' + interval '3' month
 *   and exists (select * from lineitem where l_orderkey = o_orderkey and l_commitdate &lt; l_receiptdate)
 * group by o_orderpriority
 * order by o_orderpriority
 * </pre>
 */
public final class Q4 implements TpchQuery {
  @Override
  public int number() {
    return 4;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    LocalDate from = parameters.date("DATE");
    Relation orders = Relation.scan(db.table("orders"), context)
        .filter(and(col("o_orderdate").ge(date(from)), col("o_orderdate").lt(date(from.plusMonths(3)))))
        .select("o_orderkey", "o_orderpriority");
    Relation lateLines = Relation.scan(db.table("lineitem"), context)
        .filter(col("l_commitdate").lt(col("l_receiptdate")))
        .select("l_orderkey");
    return orders.semiJoin(lateLines).on("o_orderkey", "l_orderkey").keep("o_orderpriority")
        .aggregate(List.of(col("o_orderpriority").as("o_orderpriority")), Aggregate.countStar("order_count"))
        .orderBy(SortKey.asc("o_orderpriority"))
        .toTable();
  }
}
