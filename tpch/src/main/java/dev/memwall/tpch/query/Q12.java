package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.caseWhen;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.or;

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
 * TPC-H Q12, the shipping modes and order priority query: lineitems of two ship modes received
 * within a year and shipped late, joined with their orders, counting high and low priorities per
 * ship mode. Parameters SHIPMODE1, SHIPMODE2, DATE (validation: MAIL, SHIP, 1994-01-01).
 *
 * <p>Plan: the selective lineitem filter runs first; the few matching lineitems are the join's
 * build side, orders the probe side.
 *
 * <pre>
 * select l_shipmode,
 *        sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH' then 1 else 0 end) as high_line_count,
 *        sum(case when o_orderpriority &lt;&gt; '1-URGENT' and o_orderpriority &lt;&gt; '2-HIGH' then 1 else 0 end) as low_line_count
 * from orders, lineitem
 * where o_orderkey = l_orderkey and l_shipmode in ('[SHIPMODE1]', '[SHIPMODE2]')
 *   and l_commitdate &lt; l_receiptdate and l_shipdate &lt; l_commitdate
 *   and l_receiptdate &gt;= date '[DATE]' and l_receiptdate &lt; date '[DATE]' + interval '1' year
 * group by l_shipmode order by l_shipmode
 * </pre>
 */
public final class Q12 implements TpchQuery {
  @Override
  public int number() {
    return 12;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    LocalDate from = parameters.date("DATE");
    Relation lineitems = Relation.scan(db.table("lineitem"), context)
        .filter(and(
            col("l_shipmode").in(lit(parameters.text("SHIPMODE1")), lit(parameters.text("SHIPMODE2"))),
            col("l_commitdate").lt(col("l_receiptdate")),
            col("l_shipdate").lt(col("l_commitdate")),
            col("l_receiptdate").ge(date(from)),
            col("l_receiptdate").lt(date(from.plusYears(1)))))
        .select("l_orderkey", "l_shipmode");
    Expr urgent = col("o_orderpriority").eq(lit("1-URGENT"));
    Expr high = col("o_orderpriority").eq(lit("2-HIGH"));
    Expr notUrgent = col("o_orderpriority").ne(lit("1-URGENT"));
    Expr notHigh = col("o_orderpriority").ne(lit("2-HIGH"));
    return Relation.scan(db.table("orders"), context)
        .join(lineitems).on("o_orderkey", "l_orderkey")
        .keep("o_orderpriority", "l_shipmode")
        .aggregate(List.of(col("l_shipmode").as("l_shipmode")),
            Aggregate.sum(caseWhen(or(urgent, high), lit(1), lit(0)), "high_line_count"),
            Aggregate.sum(caseWhen(and(notUrgent, notHigh), lit(1), lit(0)), "low_line_count"))
        .orderBy(SortKey.asc("l_shipmode"))
        .toTable();
  }
}
