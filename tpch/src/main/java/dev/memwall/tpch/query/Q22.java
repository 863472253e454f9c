package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.decimal;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.substring;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.util.List;

/**
 * TPC-H Q22, the global sales opportunity query: customers of seven country codes (the first two
 * characters of the phone number; validation: 13, 31, 23, 29, 30, 18, 17) with an above-average
 * positive balance and no orders, counted and summed per country code.
 *
 * <p>Plan: the uncorrelated scalar subquery (the average balance) runs first and becomes a
 * constant; NOT EXISTS is an anti join of the candidate customers with their orders on the
 * customer key (a customer with a null key would be kept, as NOT EXISTS keeps it). The orders of
 * the candidates are found first by a semi join of orders with the candidates, so both joins
 * build their hash tables on small inputs.
 *
 * <pre>
 * select cntrycode, count(*) as numcust, sum(c_acctbal) as totacctbal
 * from (select substring(c_phone from 1 for 2) as cntrycode, c_acctbal from customer
 *       where substring(c_phone from 1 for 2) in ([CODES])
 *         and c_acctbal &gt; (select avg(c_acctbal) from customer
 *                           where c_acctbal &gt; 0.00 and substring(c_phone from 1 for 2) in ([CODES]))
 *         and not exists (select * from orders where o_custkey = c_custkey)) as custsale
 * group by cntrycode order by cntrycode
 * </pre>
 */
public final class Q22 implements TpchQuery {
  @Override
  public int number() {
    return 22;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    Expr.Literal[] codes = parameters.list("CODES", String.class).stream().map(Expr::lit).toArray(Expr.Literal[]::new);
    Expr countryCode = substring(col("c_phone"), 1, 2);
    Expr aboveAverage;
    try (Table average = Relation.scan(db.table("customer"), context)
        .filter(and(col("c_acctbal").gt(decimal("0.00")), countryCode.in(codes)))
        .aggregate(List.of(), Aggregate.avg(col("c_acctbal"), "avg_acctbal"))
        .toTable()) {
      aboveAverage = ScalarSubquery.value(average).map(avg -> col("c_acctbal").gt(avg))
          .orElseGet(ScalarSubquery::comparedWithNull);
    }
    try (Table candidates = Relation.scan(db.table("customer"), context)
        .filter(and(countryCode.in(codes), aboveAverage))
        .select("c_custkey", "c_phone", "c_acctbal")
        .toTable()) {
      // NOT EXISTS (orders of the customer): orders probe the few candidates (a semi join), then the
      // candidates without such an order remain (an anti join against that small result)
      Relation candidateOrders = Relation.scan(db.table("orders"), context)
          .semiJoin(Relation.scan(candidates, context)).on("o_custkey", "c_custkey")
          .keep("o_custkey");
      try (Table customers = Relation.scan(candidates, context)
          .antiJoin(candidateOrders).on("c_custkey", "o_custkey")
          .keep("c_phone", "c_acctbal")
          .project(countryCode.as("cntrycode"), col("c_acctbal").as("c_acctbal"))
          .toTable()) {
        return Relation.scan(customers, context)
            .aggregate(List.of(col("cntrycode").as("cntrycode")),
                Aggregate.countStar("numcust"), Aggregate.sum(col("c_acctbal"), "totacctbal"))
            .orderBy(SortKey.asc("cntrycode"))
            .toTable();
      }
    }
  }
}
