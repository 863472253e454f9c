package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.caseWhen;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.decimal;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.time.LocalDate;
import java.util.List;

/**
 * TPC-H Q14, the promotion effect query: the share of one month's revenue from promotional parts.
 * Parameter DATE (validation: 1995-09-01).
 *
 * <p>Plan: one month of lineitem (the build side) joined with part (the probe side), then two sums
 * and their ratio.
 *
 * <pre>
 * select 100.00 * sum(case when p_type like 'PROMO%' then l_extendedprice * (1 - l_discount) else 0 end)
 *        / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
 * from lineitem, part
 * where l_partkey = p_partkey and l_shipdate &gt;= date '[DATE]'
 *   and l_shipdate &lt; date '[DATE]' + interval '1' month
 * </pre>
 */
public final class Q14 implements TpchQuery {
  @Override
  public int number() {
    return 14;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    LocalDate from = parameters.date("DATE");
    Relation lineitems = Relation.scan(db.table("lineitem"), context)
        .filter(and(col("l_shipdate").ge(date(from)), col("l_shipdate").lt(date(from.plusMonths(1)))))
        .select("l_partkey", "l_extendedprice", "l_discount");
    Expr revenue = col("l_extendedprice").mul(lit(1).sub(col("l_discount")));
    return Relation.scan(db.table("part"), context)
        .join(lineitems).on("p_partkey", "l_partkey")
        .keep("p_type", "l_extendedprice", "l_discount")
        .aggregate(List.of(),
            Aggregate.sum(caseWhen(col("p_type").like("PROMO%"), revenue, lit(0)), "promo"),
            Aggregate.sum(revenue, "total"))
        .project(decimal("100.00").mul(col("promo")).div(col("total")).as("promo_revenue"))
        .toTable();
  }
}
