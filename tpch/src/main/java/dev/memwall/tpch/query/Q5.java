package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
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
 * TPC-H Q5, the local supplier volume query: revenue of one region's nations from orders of one
 * year whose customer and supplier are in the same nation. The region's nations and their
 * suppliers form a small build side; the region's customers join the year's orders, which lineitem probes; the
 * supplier join is on the composite key (suppkey, nationkey), which enforces
 * {@code c_nationkey = s_nationkey}. Parameters REGION, DATE (validation: ASIA, 1994-01-01).
 *
 * <pre>
 * select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
 * from customer, orders, lineitem, supplier, nation, region
 * where c_custkey = o_custkey and l_orderkey = o_orderkey and l_suppkey = s_suppkey
 *   and c_nationkey = s_nationkey and s_nationkey = n_nationkey and n_regionkey = r_regionkey
 *   and r_name = 'ASIA' and o_orderdate &gt;= date '1994-01-01'
 *   and o_orderdate &lt; date '1994-01-01' + interval '1' year
 * group by n_name
 * order by revenue desc
 * </pre>
 */
public final class Q5 implements TpchQuery {
  @Override
  public int number() {
    return 5;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    LocalDate from = parameters.date("DATE");
    Relation suppliers = Relation.scan(db.table("supplier"), context)
        .join(regionNations(db, parameters, context)).on("s_nationkey", "n_nationkey")
        .keep("s_suppkey", "s_nationkey", "n_name");
    Relation orders = Relation.scan(db.table("orders"), context)
        .filter(and(col("o_orderdate").ge(date(from)), col("o_orderdate").lt(date(from.plusYears(1)))))
        .select("o_orderkey", "o_custkey");
    // c_nationkey = s_nationkey and the supplier's nation is in the region, so only the region's
    // customers (a fifth) can match: their orders are the small build side lineitem probes
    Relation customers = Relation.scan(db.table("customer"), context)
        .join(regionNations(db, parameters, context)).on("c_nationkey", "n_nationkey")
        .keep("c_custkey", "c_nationkey");
    Relation customerOrders = orders
        .join(customers).on("o_custkey", "c_custkey")
        .keep("o_orderkey", "c_nationkey");
    return Relation.scan(db.table("lineitem"), context)
        .join(customerOrders).on("l_orderkey", "o_orderkey")
        .keep("l_suppkey", "l_extendedprice", "l_discount", "c_nationkey")
        .join(suppliers).on(List.of("l_suppkey", "c_nationkey"), List.of("s_suppkey", "s_nationkey"))
        .keep("l_extendedprice", "l_discount", "n_name")
        .aggregate(List.of(col("n_name").as("n_name")),
            Aggregate.sum(col("l_extendedprice").mul(lit(1).sub(col("l_discount"))), "revenue"))
        .orderBy(SortKey.desc("revenue"))
        .toTable();
  }

  /** The nations of the parameter's region: {@code n_nationkey, n_name}. */
  private static Relation regionNations(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    Relation region = Relation.scan(db.table("region"), context)
        .filter(col("r_name").eq(lit(parameters.text("REGION"))));
    return Relation.scan(db.table("nation"), context)
        .join(region).on("n_regionkey", "r_regionkey").keep("n_nationkey", "n_name");
  }
}
