package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.util.List;

/**
 * TPC-H Q18, the large volume customer query: the 100 largest orders whose lineitems total more
 * than QUANTITY (validation: 300), with their customers.
 *
 * <p>Plan: the IN subquery is an aggregation of lineitem by order key with the HAVING filter; the
 * few qualifying orders (semi join) are joined with customer and then with lineitem (the small
 * side always the build side), grouped, and the top 100 taken.
 *
 * <pre>
 * select c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
 * from customer, orders, lineitem
 * where o_orderkey in (select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) &gt; [QUANTITY])
 *   and c_custkey = o_custkey and o_orderkey = l_orderkey
 * group by c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
 * order by o_totalprice desc, o_orderdate limit 100
 * </pre>
 */
public final class Q18 implements TpchQuery {
  @Override
  public int number() {
    return 18;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    Relation largeOrders = Relation.scan(db.table("lineitem"), context)
        .aggregate(List.of(col("l_orderkey").as("large_orderkey")), Aggregate.sum(col("l_quantity"), "order_quantity"))
        .filter(col("order_quantity").gt(lit(parameters.integer("QUANTITY"))));
    Relation orders = Relation.scan(db.table("orders"), context)
        .semiJoin(largeOrders).on("o_orderkey", "large_orderkey")
        .keep("o_orderkey", "o_custkey", "o_orderdate", "o_totalprice");
    Relation customerOrders = Relation.scan(db.table("customer"), context)
        .join(orders).on("c_custkey", "o_custkey")
        .keep("c_name", "c_custkey", "o_orderkey", "o_orderdate", "o_totalprice");
    return Relation.scan(db.table("lineitem"), context)
        .join(customerOrders).on("l_orderkey", "o_orderkey")
        .keep("l_quantity", "c_name", "c_custkey", "o_orderkey", "o_orderdate", "o_totalprice")
        .aggregate(List.of(col("c_name").as("c_name"), col("c_custkey").as("c_custkey"), col("o_orderkey").as("o_orderkey"),
                col("o_orderdate").as("o_orderdate"), col("o_totalprice").as("o_totalprice")),
            Aggregate.sum(col("l_quantity"), "sum_quantity"))
        .orderBy(SortKey.desc("o_totalprice"), SortKey.asc("o_orderdate"))
        .limit(100)
        .toTable();
  }
}
