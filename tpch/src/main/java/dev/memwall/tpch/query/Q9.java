package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.year;

import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.util.List;

/**
 * TPC-H Q9, the product type profit measure query: the profit on parts whose name contains a
 * colour, per supplier nation and order year. The colour's parts restrict partsupp (their supply
 * costs) and, as a join, lineitem; the lineitems then probe those partsupp rows on the composite
 * key (partkey, suppkey) and their supplier (for its nation key). Those few lineitems (about 5% of
 * them) become the build side of the join with orders, which all of orders probes, rather than
 * orders being hashed for them; the profit is summed per nation key and year, and only the summed
 * rows join nation for its name. Parameter COLOR (validation: green).
 *
 * <pre>
 * select nation, o_year, sum(amount) as sum_profit
 * from (select n_name as nation, extract(year from o_orderdate) as o_year,
 *              l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
 *       from part, supplier, lineitem, partsupp, orders, nation
 *       where s_suppkey = l_suppkey and ps_suppkey = l_suppkey and ps_partkey = l_partkey
 *         and p_partkey = l_partkey and o_orderkey = l_orderkey and s_nationkey = n_nationkey
 *         and p_name like '%green%') as profit
 * group by nation, o_year
 * order by nation, o_year desc
 * </pre>
 */
public final class Q9 implements TpchQuery {
  @Override
  public int number() {
    return 9;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    try (Table parts = Relation.scan(db.table("part"), context)
        .filter(col("p_name").like("%" + parameters.text("COLOR") + "%"))
        .select("p_partkey")
        .toTable()) {
      Relation supplies = Relation.scan(db.table("partsupp"), context)
          .join(Relation.scan(parts, context)).on("ps_partkey", "p_partkey")
          .keep("ps_partkey", "ps_suppkey", "ps_supplycost");
      Relation lines = Relation.scan(db.table("lineitem"), context)
          .join(Relation.scan(parts, context)).on("l_partkey", "p_partkey")
          .keep("l_orderkey", "l_partkey", "l_suppkey", "l_quantity", "l_extendedprice", "l_discount")
          .join(supplies).on(List.of("l_partkey", "l_suppkey"), List.of("ps_partkey", "ps_suppkey"))
          .keep("l_orderkey", "l_suppkey", "l_quantity", "l_extendedprice", "l_discount", "ps_supplycost")
          .join(Relation.scan(db.table("supplier"), context).select("s_suppkey", "s_nationkey"))
          .on("l_suppkey", "s_suppkey")
          .keep("l_orderkey", "l_quantity", "l_extendedprice", "l_discount", "ps_supplycost", "s_nationkey");
      return Relation.scan(db.table("orders"), context)
          .join(lines).on("o_orderkey", "l_orderkey")
          .keep("o_orderdate", "l_quantity", "l_extendedprice", "l_discount", "ps_supplycost", "s_nationkey")
          .aggregate(List.of(col("s_nationkey").as("s_nationkey"), year(col("o_orderdate")).as("o_year")),
              Aggregate.sum(col("l_extendedprice").mul(lit(1).sub(col("l_discount")))
                  .sub(col("ps_supplycost").mul(col("l_quantity"))), "sum_profit"))
          .join(Relation.scan(db.table("nation"), context)).on("s_nationkey", "n_nationkey")
          .keep("o_year", "sum_profit", "n_name")
          .project(col("n_name").as("nation"), col("o_year").as("o_year"), col("sum_profit").as("sum_profit"))
          .orderBy(SortKey.asc("nation"), SortKey.desc("o_year"))
          .toTable();
    }
  }
}
