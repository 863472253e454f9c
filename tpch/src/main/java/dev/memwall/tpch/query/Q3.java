package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.time.LocalDate;
import java.util.List;

/**
 * TPC-H Q3, the shipping priority query: the ten unshipped orders of one market segment with the
 * largest revenue. customer (filtered by segment) is the build side of a join with the orders
 * placed before DATE, whose result is the build side of the join with the lineitems shipped after
 * DATE; then a grouped sum and a top 10. Parameters SEGMENT, DATE (validation: BUILDING, 1995-03-15).
 *
 * <pre>
 * select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue, o_orderdate, o_shippriority
 * from customer, orders, lineitem
 * where c_mktsegment = 'BUILDING' and c_custkey = o_custkey and l_orderkey = o_orderkey
 *   and o_orderdate &lt; date '1995-03-15' and l_shipdate &gt; date '1995-03-15'
 * group by l_orderkey, o_orderdate, o_shippriority
 * order by revenue desc, o_orderdate
 * limit 10
 * </pre>
 */
public final class Q3 implements TpchQuery {
  @Override
  public int number() {
    return 3;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    LocalDate day = parameters.date("DATE");
    Relation customers = Relation.scan(db.table("customer"), context)
        .filter(col("c_mktsegment").eq(lit(parameters.text("SEGMENT"))))
        .select("c_custkey");
    Relation orders = Relation.scan(db.table("orders"), context)
        .filter(col("o_orderdate").lt(date(day)))
        .select("o_orderkey", "o_custkey", "o_orderdate", "o_shippriority");
    Relation lines = Relation.scan(db.table("lineitem"), context)
        .filter(col("l_shipdate").gt(date(day)))
        .select("l_orderkey", "l_extendedprice", "l_discount");
    return lines
        .join(orders.join(customers).on("o_custkey", "c_custkey").keep("o_orderkey", "o_orderdate", "o_shippriority"))
        .on("l_orderkey", "o_orderkey").keep("l_orderkey", "l_extendedprice", "l_discount", "o_orderdate", "o_shippriority")
        // o_orderdate and o_shippriority depend on l_orderkey (= o_orderkey, the key of orders): grouping
        // on the order key alone lets lineitem's runs of equal order keys aggregate without a hash table
        .aggregate(List.of(col("l_orderkey").as("l_orderkey")),
            Aggregate.sum(col("l_extendedprice").mul(lit(1).sub(col("l_discount"))), "revenue"),
            Aggregate.min(col("o_orderdate"), "o_orderdate"), Aggregate.min(col("o_shippriority"), "o_shippriority"))
        .project(col("l_orderkey").as("l_orderkey"), col("revenue").as("revenue"),
            col("o_orderdate").as("o_orderdate"), col("o_shippriority").as("o_shippriority"))
        .orderBy(SortKey.desc("revenue"), SortKey.asc("o_orderdate"))
        .limit(10)
        .toTable();
  }
}
