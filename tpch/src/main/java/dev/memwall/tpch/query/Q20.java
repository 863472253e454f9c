package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.decimal;
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
 * TPC-H Q20, the potential part promotion query: suppliers of one nation with an excess of parts
 * named COLOR% (more than half of what they shipped of that part in a year). Parameters COLOR,
 * DATE, NATION (validation: forest, 1994-01-01, CANADA).
 *
 * <p>Plan: the IN subqueries are semi joins; the correlated sum is decorrelated into an
 * aggregation of the year's lineitems (restricted by a semi join to the COLOR% parts) by
 * (part, supplier), inner-joined with partsupp on both keys: a partsupp row without lineitems has
 * a NULL sum, the comparison is then NULL and the row drops out, as the inner join drops it.
 *
 * <pre>
 * select s_name, s_address from supplier, nation
 * where s_suppkey in (
 *     select ps_suppkey from partsupp
 *     where ps_partkey in (select p_partkey from part where p_name like '[COLOR]%')
 *       and ps_availqty &gt; (select 0.5 * sum(l_quantity) from lineitem
 *                            where l_partkey = ps_partkey and l_suppkey = ps_suppkey
 *                              and l_shipdate &gt;= date '[DATE]' and l_shipdate &lt; date '[DATE]' + interval '1' year))
 *   and s_nationkey = n_nationkey and n_name = '[NATION]'
 * order by s_name
 * </pre>
 */
public final class Q20 implements TpchQuery {
  @Override
  public int number() {
    return 20;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    LocalDate from = parameters.date("DATE");
    try (Table colorParts = Relation.scan(db.table("part"), context)
        .filter(col("p_name").like(parameters.text("COLOR") + "%"))
        .select("p_partkey")
        .toTable()) {
      try (Relation shipped = Relation.scan(db.table("lineitem"), context)
              .filter(and(col("l_shipdate").ge(date(from)), col("l_shipdate").lt(date(from.plusYears(1)))))
              .select("l_partkey", "l_suppkey", "l_quantity")
              .semiJoin(Relation.scan(colorParts, context)).on("l_partkey", "p_partkey")
              .keep("l_partkey", "l_suppkey", "l_quantity")
              .aggregate(List.of(col("l_partkey").as("l_partkey"), col("l_suppkey").as("l_suppkey")),
                  Aggregate.sum(col("l_quantity"), "shipped_quantity"));
          Relation excessSuppliers = Relation.scan(db.table("partsupp"), context)
              .semiJoin(Relation.scan(colorParts, context)).on("ps_partkey", "p_partkey")
              .keep("ps_partkey", "ps_suppkey", "ps_availqty")
              .join(shipped).on(List.of("ps_partkey", "ps_suppkey"), List.of("l_partkey", "l_suppkey"))
              .keep("ps_suppkey", "ps_availqty", "shipped_quantity")
              .filter(col("ps_availqty").gt(decimal("0.5").mul(col("shipped_quantity"))))
              .select("ps_suppkey");
          Relation nation = Relation.scan(db.table("nation"), context)
              .filter(col("n_name").eq(lit(parameters.text("NATION"))))
              .select("n_nationkey")) {
        return Relation.scan(db.table("supplier"), context)
            .join(nation).on("s_nationkey", "n_nationkey")
            .keep("s_suppkey", "s_name", "s_address")
            .semiJoin(excessSuppliers).on("s_suppkey", "ps_suppkey")
            .keep("s_name", "s_address")
            .orderBy(SortKey.asc("s_name"))
            .toTable();
      }
    }
  }
}
