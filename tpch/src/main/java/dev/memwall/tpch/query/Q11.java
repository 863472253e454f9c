package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.decimal;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.math.BigDecimal;
import java.util.List;

/**
 * TPC-H Q11, the important stock identification query: the parts making up more than FRACTION of
 * the total stock value of one nation's suppliers. The nation's stock (partsupp joined with its
 * suppliers) is summed per part once; the uncorrelated scalar subquery, the total, is the sum of
 * those per-part sums (exact decimal arithmetic, so the same value), evaluated first and then
 * compared with as a constant. Parameters NATION, FRACTION (validation: GERMANY, 0.0001 / SF).
 *
 * <pre>
 * select ps_partkey, sum(ps_supplycost * ps_availqty) as value
 * from partsupp, supplier, nation
 * where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = 'GERMANY'
 * group by ps_partkey
 * having sum(ps_supplycost * ps_availqty) &gt; (select sum(ps_supplycost * ps_availqty) * 0.0001
 *                                               from partsupp, supplier, nation
 *                                               where ps_suppkey = s_suppkey and s_nationkey = n_nationkey
 *                                                 and n_name = 'GERMANY')
 * order by value desc
 * </pre>
 */
public final class Q11 implements TpchQuery {
  @Override
  public int number() {
    return 11;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    Relation nation = Relation.scan(db.table("nation"), context)
        .filter(col("n_name").eq(lit(parameters.text("NATION"))));
    Relation suppliers = Relation.scan(db.table("supplier"), context)
        .join(nation).on("s_nationkey", "n_nationkey").keep("s_suppkey");
    Relation valueByPart = Relation.scan(db.table("partsupp"), context)
        .join(suppliers).on("ps_suppkey", "s_suppkey").keep("ps_partkey", "ps_supplycost", "ps_availqty")
        .aggregate(List.of(col("ps_partkey").as("ps_partkey")),
            Aggregate.sum(col("ps_supplycost").mul(col("ps_availqty")), "value"));
    try (Table values = valueByPart.toTable()) {
      BigDecimal threshold = total(values, context).multiply(parameters.decimal("FRACTION"));
      return Relation.scan(values, context)
          .filter(col("value").gt(decimal(threshold)))
          .orderBy(SortKey.desc("value"))
          .toTable();
    }
  }

  /**
   * The sum of the per-part values; zero when there are none (the subquery's sum is then NULL,
   * but no group is compared with it either).
   */
  private static BigDecimal total(Table values, ExecutionContext context) {
    try (Table total = Relation.scan(values, context)
        .aggregate(List.of(), Aggregate.sum(col("value"), "total")).toTable()) {
      for (var batch : total.batches()) {
        if (batch.rowCount() > 0 && batch.column(0).getObject(0) instanceof BigDecimal sum) {
          return sum;
        }
      }
      return BigDecimal.ZERO;
    }
  }
}
