package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.or;
import static dev.memwall.core.expr.Expr.year;

import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.util.List;

/**
 * TPC-H Q7, the volume shipping query: the value shipped between two nations, in either
 * direction, per year of 1995 and 1996. Both nation roles are scans of nation renamed by a
 * projection and restricted to the two nations (implied by the OR predicate, which is still
 * applied after the joins); suppliers and customers join their nation, lineitems of the two years
 * probe the suppliers, then the customers' orders. Parameters NATION1, NATION2 (validation:
 * FRANCE, GERMANY).
 *
 * <pre>
 * select supp_nation, cust_nation, l_year, sum(volume) as revenue
 * from (select n1.n_name as supp_nation, n2.n_name as cust_nation,
 *              extract(year from l_shipdate) as l_year, l_extendedprice * (1 - l_discount) as volume
 *       from supplier, lineitem, orders, customer, nation n1, nation n2
 *       where s_suppkey = l_suppkey and o_orderkey = l_orderkey and c_custkey = o_custkey
 *         and s_nationkey = n1.n_nationkey and c_nationkey = n2.n_nationkey
 *         and ((n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY') or (n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE'))
 *         and l_shipdate between date '1995-01-01' and date '1996-12-31') as shipping
 * group by supp_nation, cust_nation, l_year
 * order by supp_nation, cust_nation, l_year
 * </pre>
 */
public final class Q7 implements TpchQuery {
  @Override
  public int number() {
    return 7;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    String first = parameters.text("NATION1");
    String second = parameters.text("NATION2");
    Relation supplierNations = Relation.scan(db.table("nation"), context)
        .filter(col("n_name").in(lit(first), lit(second)))
        .project(col("n_nationkey").as("supp_nationkey"), col("n_name").as("supp_nation"));
    Relation customerNations = Relation.scan(db.table("nation"), context)
        .filter(col("n_name").in(lit(first), lit(second)))
        .project(col("n_nationkey").as("cust_nationkey"), col("n_name").as("cust_nation"));
    Relation suppliers = Relation.scan(db.table("supplier"), context)
        .join(supplierNations).on("s_nationkey", "supp_nationkey").keep("s_suppkey", "supp_nation");
    Relation customerOrders = Relation.scan(db.table("orders"), context)
        .join(Relation.scan(db.table("customer"), context)
            .join(customerNations).on("c_nationkey", "cust_nationkey").keep("c_custkey", "cust_nation"))
        .on("o_custkey", "c_custkey").keep("o_orderkey", "cust_nation");
    return Relation.scan(db.table("lineitem"), context)
        .filter(col("l_shipdate").between(date("1995-01-01"), date("1996-12-31")))
        .select("l_orderkey", "l_suppkey", "l_shipdate", "l_extendedprice", "l_discount")
        .join(suppliers).on("l_suppkey", "s_suppkey")
        .keep("l_orderkey", "l_shipdate", "l_extendedprice", "l_discount", "supp_nation")
        .join(customerOrders).on("l_orderkey", "o_orderkey")
        .keep("l_shipdate", "l_extendedprice", "l_discount", "supp_nation", "cust_nation")
        .filter(or(and(col("supp_nation").eq(lit(first)), col("cust_nation").eq(lit(second))),
            and(col("supp_nation").eq(lit(second)), col("cust_nation").eq(lit(first)))))
        .aggregate(List.of(col("supp_nation").as("supp_nation"), col("cust_nation").as("cust_nation"),
                year(col("l_shipdate")).as("l_year")),
            Aggregate.sum(col("l_extendedprice").mul(lit(1).sub(col("l_discount"))), "revenue"))
        .orderBy(SortKey.asc("supp_nation"), SortKey.asc("cust_nation"), SortKey.asc("l_year"))
        .toTable();
  }
}
