package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.util.List;

/**
 * TPC-H Q17, the small-quantity-order revenue query: the yearly revenue lost if orders of small
 * quantities (below 20% of the part's average) of one brand and container were not filled.
 * Parameters BRAND, CONTAINER (validation: Brand#23, MED BOX).
 *
 * <p>Plan: the correlated subquery is decorrelated over the qualifying parts only: the lineitems
 * of those parts (lineitem probing the few parts) are materialized once, their average quantity
 * per part computed by an aggregation, and joined back on the part key; the subquery's average
 * for a part ranges over exactly these lineitems.
 *
 * <pre>
 * select sum(l_extendedprice) / 7.0 as avg_yearly
 * from lineitem, part
 * where p_partkey = l_partkey and p_brand = '[BRAND]' and p_container = '[CONTAINER]'
 *   and l_quantity &lt; (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)
 * </pre>
 */
public final class Q17 implements TpchQuery {
  @Override
  public int number() {
    return 17;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    Relation parts = Relation.scan(db.table("part"), context)
        .filter(and(col("p_brand").eq(lit(parameters.text("BRAND"))),
            col("p_container").eq(lit(parameters.text("CONTAINER")))))
        .select("p_partkey");
    try (Table partLines = Relation.scan(db.table("lineitem"), context)
        .join(parts).on("l_partkey", "p_partkey")
        .keep("l_partkey", "l_quantity", "l_extendedprice")
        .toTable()) {
      Relation averages = Relation.scan(partLines, context)
          .aggregate(List.of(col("l_partkey").as("avg_partkey")), Aggregate.avg(col("l_quantity"), "avg_quantity"));
      return Relation.scan(partLines, context)
          .join(averages).on("l_partkey", "avg_partkey")
          .keep("l_quantity", "l_extendedprice", "avg_quantity")
          .filter(col("l_quantity").lt(lit(0.2).mul(col("avg_quantity"))))
          .aggregate(List.of(), Aggregate.sum(col("l_extendedprice"), "revenue"))
          .project(col("revenue").div(lit(7.0)).as("avg_yearly"))
          .toTable();
    }
  }
}
