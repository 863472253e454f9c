package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.util.List;

/**
 * TPC-H Q21, the suppliers who kept orders waiting: suppliers of NATION (validation: SAUDI ARABIA)
 * who were the only late supplier of a multi-supplier order with status 'F'.
 *
 * <p>Plan: for a late lineitem l1 of supplier s in order o, EXISTS (a line of o from another
 * supplier) holds exactly when o's lines have at least two distinct suppliers, that is when their
 * smallest and largest supplier key differ; NOT EXISTS (a late line of o from another supplier)
 * holds exactly when o's late lines all come from one supplier (l1 being one of them), that is
 * when the smallest and largest supplier key of the late lines are equal. Both subqueries thus
 * become aggregations by order key (supplier keys are NOT NULL) and semi joins with the late
 * lineitems of the nation's suppliers. Only the candidate orders matter (status 'F' with a late
 * line of the nation's suppliers), so their lines are found first (semi joins whose hash tables
 * are small) and only those lines are aggregated.
 *
 * <pre>
 * select s_name, count(*) as numwait
 * from supplier, lineitem l1, orders, nation
 * where s_suppkey = l1.l_suppkey and o_orderkey = l1.l_orderkey and o_orderstatus = 'F'
 *   and l1.l_receiptdate &gt; l1.l_commitdate
 *   and exists (select * from lineitem l2 where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey &lt;&gt; l1.l_suppkey)
 *   and not exists (select * from lineitem l3 where l3.l_orderkey = l1.l_orderkey
 *                   and l3.l_suppkey &lt;&gt; l1.l_suppkey and l3.l_receiptdate &gt; l3.l_commitdate)
 *   and s_nationkey = n_nationkey and n_name = '[NATION]'
 * group by s_name order by numwait desc, s_name limit 100
 * </pre>
 */
public final class Q21 implements TpchQuery {
  @Override
  public int number() {
    return 21;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    Expr late = col("l_receiptdate").gt(col("l_commitdate"));
    try (Relation nation = Relation.scan(db.table("nation"), context)
            .filter(col("n_name").eq(lit(parameters.text("NATION"))))
            .select("n_nationkey");
        Relation suppliers = Relation.scan(db.table("supplier"), context)
            .join(nation).on("s_nationkey", "n_nationkey")
            .keep("s_suppkey", "s_name");
        Table lateLines = Relation.scan(db.table("lineitem"), context)
            .join(suppliers).on("l_suppkey", "s_suppkey")
            .keep("l_orderkey", "l_receiptdate", "l_commitdate", "s_name")
            .filter(late)
            .select("l_orderkey", "s_name")
            .toTable();
        Table candidateOrders = Relation.scan(db.table("orders"), context)
            .filter(col("o_orderstatus").eq(lit("F")))
            .select("o_orderkey")
            .semiJoin(Relation.scan(lateLines, context)).on("o_orderkey", "l_orderkey")
            .keep("o_orderkey")
            .toTable();
        Table candidateOrderLines = Relation.scan(db.table("lineitem"), context)
            .semiJoin(Relation.scan(candidateOrders, context)).on("l_orderkey", "o_orderkey")
            .keep("l_orderkey", "l_suppkey", "l_receiptdate", "l_commitdate")
            .toTable()) {
      Relation multiSupplierOrders = Relation.scan(candidateOrderLines, context)
          .aggregate(List.of(col("l_orderkey").as("multi_orderkey")),
              Aggregate.min(col("l_suppkey"), "min_suppkey"), Aggregate.max(col("l_suppkey"), "max_suppkey"))
          .filter(col("min_suppkey").ne(col("max_suppkey")));
      Relation singleLateSupplierOrders = Relation.scan(candidateOrderLines, context)
          .filter(late)
          .aggregate(List.of(col("l_orderkey").as("single_orderkey")),
              Aggregate.min(col("l_suppkey"), "min_suppkey"), Aggregate.max(col("l_suppkey"), "max_suppkey"))
          .filter(col("min_suppkey").eq(col("max_suppkey")));
      // the aggregations ran over candidate orders only, so these semi joins also keep lines of candidates only
      return Relation.scan(lateLines, context)
          .semiJoin(multiSupplierOrders).on("l_orderkey", "multi_orderkey").keep("l_orderkey", "s_name")
          .semiJoin(singleLateSupplierOrders).on("l_orderkey", "single_orderkey").keep("s_name")
          .aggregate(List.of(col("s_name").as("s_name")), Aggregate.countStar("numwait"))
          .orderBy(SortKey.desc("numwait"), SortKey.asc("s_name"))
          .limit(100)
          .toTable();
    }
  }
}
