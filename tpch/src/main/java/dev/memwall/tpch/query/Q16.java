package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.not;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.util.List;

/**
 * TPC-H Q16, the parts/supplier relationship query: per brand, type and size, how many suppliers
 * without complaints can supply parts not of brand BRAND, not of type TYPE% and of one of eight
 * SIZES (validation: Brand#45, MEDIUM POLISHED, 49, 14, 23, 45, 19, 3, 36, 9).
 *
 * <p>Plan: partsupp probes the filtered parts; NOT IN becomes an anti join with the suppliers with
 * complaints (both key columns are NOT NULL, so NOT IN and NOT EXISTS agree); COUNT(DISTINCT
 * ps_suppkey) is a grouping by (brand, type, size, supplier) that removes duplicates, then a count
 * per (brand, type, size).
 *
 * <pre>
 * select p_brand, p_type, p_size, count(distinct ps_suppkey) as supplier_cnt
 * from partsupp, part
 * where p_partkey = ps_partkey and p_brand &lt;&gt; '[BRAND]' and p_type not like '[TYPE]%'
 *   and p_size in ([SIZES])
 *   and ps_suppkey not in (select s_suppkey from supplier where s_comment like '%Customer%Complaints%')
 * group by p_brand, p_type, p_size
 * order by supplier_cnt desc, p_brand, p_type, p_size
 * </pre>
 */
public final class Q16 implements TpchQuery {
  @Override
  public int number() {
    return 16;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    Expr.Literal[] sizes = parameters.list("SIZES", Integer.class).stream()
        .map(size -> lit(size.longValue())).toArray(Expr.Literal[]::new);
    Relation parts = Relation.scan(db.table("part"), context)
        .filter(and(col("p_brand").ne(lit(parameters.text("BRAND"))),
            not(col("p_type").like(parameters.text("TYPE") + "%")),
            col("p_size").in(sizes)))
        .select("p_partkey", "p_brand", "p_type", "p_size");
    Relation complaints = Relation.scan(db.table("supplier"), context)
        .filter(col("s_comment").like("%Customer%Complaints%"))
        .select("s_suppkey");
    return Relation.scan(db.table("partsupp"), context)
        .join(parts).on("ps_partkey", "p_partkey")
        .keep("ps_suppkey", "p_brand", "p_type", "p_size")
        .antiJoin(complaints).on("ps_suppkey", "s_suppkey")
        .keep("ps_suppkey", "p_brand", "p_type", "p_size")
        .aggregate(List.of(col("p_brand").as("p_brand"), col("p_type").as("p_type"), col("p_size").as("p_size"),
            col("ps_suppkey").as("ps_suppkey")))
        .aggregate(List.of(col("p_brand").as("p_brand"), col("p_type").as("p_type"), col("p_size").as("p_size")),
            Aggregate.countStar("supplier_cnt"))
        .orderBy(SortKey.desc("supplier_cnt"), SortKey.asc("p_brand"), SortKey.asc("p_type"), SortKey.asc("p_size"))
        .toTable();
  }
}
