package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDatabase;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * TPC-H Q1, the pricing summary report: one scan of lineitem, a date filter keeping ~98% of the
 * rows, and eight aggregates over four groups. Validation parameter: DELTA = 90 days.
 *
 * <pre>
 * select l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
 *        sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
 *        avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*)
 * from lineitem where l_shipdate &lt;= date '1998-12-01' - interval '90' day
 * group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus
 * </pre>
 */
public final class Q1 implements TpchQuery {
  @Override
  public int number() {
    return 1;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    return plan(db, parameters.integer("DELTA"), List.of())
        .orderBy(SortKey.asc("l_returnflag"), SortKey.asc("l_linestatus"))
        .execute(context);
  }

  /**
   * Q1 up to its aggregation, grouped by the return flag, the line status and {@code extraKeys}:
   * with an extra key such as {@code l_suppkey} it is the many-group Q1 variant of seed 001's DSM
   * versus NSM study.
   */
  public static Plan plan(TpchDatabase db, long delta, List<NamedExpr> extraKeys) {
    return plan(Plan.scan(db.table("lineitem")), delta, extraKeys);
  }

  /** As {@link #plan(TpchDatabase, long, List)} over {@code lineitem}, a scan of a table or of a stream of its batches. */
  public static Plan plan(Plan lineitem, long delta, List<NamedExpr> extraKeys) {
    LocalDate lastShipped = LocalDate.of(1998, 12, 1).minusDays(delta);
    Expr discountedPrice = col("l_extendedprice").mul(lit(1).sub(col("l_discount")));
    List<NamedExpr> keys = new ArrayList<>(List.of(col("l_returnflag").as("l_returnflag"),
        col("l_linestatus").as("l_linestatus")));
    keys.addAll(extraKeys);
    return lineitem
        .filter(col("l_shipdate").le(date(lastShipped)))
        .aggregate(keys,
            Aggregate.sum(col("l_quantity"), "sum_qty"),
            Aggregate.sum(col("l_extendedprice"), "sum_base_price"),
            Aggregate.sum(discountedPrice, "sum_disc_price"),
            Aggregate.sum(discountedPrice.mul(lit(1).add(col("l_tax"))), "sum_charge"),
            Aggregate.avg(col("l_quantity"), "avg_qty"),
            Aggregate.avg(col("l_extendedprice"), "avg_price"),
            Aggregate.avg(col("l_discount"), "avg_disc"),
            Aggregate.countStar("count_order"));
  }
}
