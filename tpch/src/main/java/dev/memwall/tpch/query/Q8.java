package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.caseWhen;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.year;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.util.List;

/**
 * TPC-H Q8, the national market share query: one nation's share, per year of 1995 and 1996, of
 * the revenue from one part type sold to customers of its region. The lineitems of the type's
 * parts probe the region's customers' orders of those years, then the suppliers and their nation
 * (nation n2, renamed); the CASE expression splits the nation's volume from all. Parameters
 * NATION, REGION, TYPE (validation: BRAZIL, AMERICA, ECONOMY ANODIZED STEEL).
 *
 * <pre>
 * select o_year, sum(case when nation = 'BRAZIL' then volume else 0 end) / sum(volume) as mkt_share
 * from (select extract(year from o_orderdate) as o_year, l_extendedprice * (1 - l_discount) as volume,
 *              n2.n_name as nation
 *       from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
 *       where p_partkey = l_partkey and s_suppkey = l_suppkey and l_orderkey = o_orderkey
 *         and o_custkey = c_custkey and c_nationkey = n1.n_nationkey and n1.n_regionkey = r_regionkey
 *         and r_name = 'AMERICA' and s_nationkey = n2.n_nationkey
 *         and o_orderdate between date '1995-01-01' and date '1996-12-31'
 *         and p_type = 'ECONOMY ANODIZED STEEL') as all_nations
 * group by o_year
 * order by o_year
 * </pre>
 */
public final class Q8 implements TpchQuery {
  @Override
  public int number() {
    return 8;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    Relation region = Relation.scan(db.table("region"), context)
        .filter(col("r_name").eq(lit(parameters.text("REGION"))));
    Relation regionNations = Relation.scan(db.table("nation"), context)
        .join(region).on("n_regionkey", "r_regionkey").keep("n_nationkey");
    Relation customers = Relation.scan(db.table("customer"), context)
        .join(regionNations).on("c_nationkey", "n_nationkey").keep("c_custkey");
    Relation orders = Relation.scan(db.table("orders"), context)
        .filter(col("o_orderdate").between(date("1995-01-01"), date("1996-12-31")))
        .select("o_orderkey", "o_custkey", "o_orderdate")
        .join(customers).on("o_custkey", "c_custkey").keep("o_orderkey", "o_orderdate");
    Relation parts = Relation.scan(db.table("part"), context)
        .filter(col("p_type").eq(lit(parameters.text("TYPE"))))
        .select("p_partkey");
    Relation supplierNations = Relation.scan(db.table("supplier"), context)
        .join(Relation.scan(db.table("nation"), context)).on("s_nationkey", "n_nationkey").keep("s_suppkey", "n_name");
    Expr volume = col("l_extendedprice").mul(lit(1).sub(col("l_discount")));
    return Relation.scan(db.table("lineitem"), context)
        .join(parts).on("l_partkey", "p_partkey")
        .keep("l_orderkey", "l_suppkey", "l_extendedprice", "l_discount")
        .join(orders).on("l_orderkey", "o_orderkey")
        .keep("l_suppkey", "l_extendedprice", "l_discount", "o_orderdate")
        .join(supplierNations).on("l_suppkey", "s_suppkey")
        .keep("l_extendedprice", "l_discount", "o_orderdate", "n_name")
        .aggregate(List.of(year(col("o_orderdate")).as("o_year")),
            Aggregate.sum(caseWhen(col("n_name").eq(lit(parameters.text("NATION"))), volume, lit(0)), "nation_volume"),
            Aggregate.sum(volume, "total_volume"))
        .project(col("o_year").as("o_year"), col("nation_volume").div(col("total_volume")).as("mkt_share"))
        .orderBy(SortKey.asc("o_year"))
        .toTable();
  }
}
