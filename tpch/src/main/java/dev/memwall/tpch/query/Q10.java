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
 * TPC-H Q10, the returned item reporting query: the 20 customers whose returned items of one
 * quarter's orders lost the most revenue. The returned lineitems probe the quarter's orders and
 * are summed per customer first; since {@code c_custkey} is customer's key, every other grouping
 * column is determined by it, and each sum has exactly one customer, so the top 20 sums are taken
 * first and only those 20 rows join customer (which probes them) and nation. Parameter DATE
 * (validation: 1993-10-01).
 *
 * <pre>
 * select c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) as revenue, c_acctbal, n_name,
 *        c_address, c_phone, c_comment
 * from customer, orders, lineitem, nation
 * where c_custkey = o_custkey and l_orderkey = o_orderkey and o_orderdate &gt;= date '1993-10-01'
 *   and o_orderdate &lt; date '1993-10-01' + interval '3' month and l_returnflag = 'R'
 *   and c_nationkey = n_nationkey
 * group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
 * order by revenue desc
 * limit 20
 * </pre>
 */
public final class Q10 implements TpchQuery {
  @Override
  public int number() {
    return 10;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    LocalDate from = parameters.date("DATE");
    Relation orders = Relation.scan(db.table("orders"), context)
        .filter(and(col("o_orderdate").ge(date(from)), col("o_orderdate").lt(date(from.plusMonths(3)))))
        .select("o_orderkey", "o_custkey");
    Relation revenueByCustomer = Relation.scan(db.table("lineitem"), context)
        .filter(col("l_returnflag").eq(lit("R")))
        .select("l_orderkey", "l_extendedprice", "l_discount")
        .join(orders).on("l_orderkey", "o_orderkey").keep("l_extendedprice", "l_discount", "o_custkey")
        .aggregate(List.of(col("o_custkey").as("o_custkey")),
            Aggregate.sum(col("l_extendedprice").mul(lit(1).sub(col("l_discount"))), "revenue"));
    Relation topCustomers = revenueByCustomer.orderBy(SortKey.desc("revenue")).limit(20);
    return Relation.scan(db.table("customer"), context)
        .join(topCustomers).on("c_custkey", "o_custkey")
        .keep("revenue", "c_custkey", "c_name", "c_acctbal", "c_address", "c_phone", "c_comment", "c_nationkey")
        .join(Relation.scan(db.table("nation"), context)).on("c_nationkey", "n_nationkey")
        .keep("revenue", "c_custkey", "c_name", "c_acctbal", "c_address", "c_phone", "c_comment", "n_name")
        .orderBy(SortKey.desc("revenue"))
        .project(col("c_custkey").as("c_custkey"), col("c_name").as("c_name"), col("revenue").as("revenue"),
            col("c_acctbal").as("c_acctbal"), col("n_name").as("n_name"), col("c_address").as("c_address"),
            col("c_phone").as("c_phone"), col("c_comment").as("c_comment"))
        .toTable();
  }
}
