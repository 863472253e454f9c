package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.coalesce;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.not;

import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.util.List;

/**
 * TPC-H Q13, the customer distribution query: how many customers have how many orders whose
 * comment does not mention WORD1 ... WORD2 (validation: special, requests), customers without such
 * orders included with a count of zero.
 *
 * <p>Plan: the orders that qualify are counted per customer first (an aggregation pushed below
 * the join: {@code count(o_orderkey)} per customer over the left outer join is the customer's
 * number of qualifying orders, o_orderkey being NOT NULL); customer (preserved, probe side) is then
 * left outer joined with these counts, where a customer without qualifying orders gets a null count
 * that COALESCE turns into 0, as {@code count} over its single null-extended row gives.
 *
 * <pre>
 * select c_count, count(*) as custdist
 * from (select c_custkey, count(o_orderkey)
 *       from customer left outer join orders on c_custkey = o_custkey and o_comment not like '%[WORD1]%[WORD2]%'
 *       group by c_custkey) as c_orders (c_custkey, c_count)
 * group by c_count order by custdist desc, c_count desc
 * </pre>
 */
public final class Q13 implements TpchQuery {
  @Override
  public int number() {
    return 13;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    String pattern = "%" + parameters.text("WORD1") + "%" + parameters.text("WORD2") + "%";
    Relation orderCounts = Relation.scan(db.table("orders"), context)
        .filter(not(col("o_comment").like(pattern)))
        .aggregate(List.of(col("o_custkey").as("o_custkey")), Aggregate.countStar("order_count"));
    return Relation.scan(db.table("customer"), context)
        .leftOuterJoin(orderCounts).on("c_custkey", "o_custkey")
        .keep("order_count")
        .aggregate(List.of(coalesce(col("order_count"), lit(0)).as("c_count")), Aggregate.countStar("custdist"))
        .orderBy(SortKey.desc("custdist"), SortKey.desc("c_count"))
        .toTable();
  }
}
