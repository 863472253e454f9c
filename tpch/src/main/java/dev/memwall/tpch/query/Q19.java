package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.or;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.util.List;

/**
 * TPC-H Q19, the discounted revenue query: revenue of air-shipped lineitems of parts in one of
 * three brand / container / size / quantity classes. Parameters QUANTITY1..3 and BRAND1..3
 * (validation: 1, 10, 20 and Brand#12, Brand#23, Brand#34).
 *
 * <p>Plan: the disjunction's terms on one table alone are pushed below the join (ship mode and
 * instruction are common to all three branches; each branch's part terms, OR-ed, restrict part);
 * the whole disjunction is then applied to the joined rows.
 *
 * <pre>
 * select sum(l_extendedprice * (1 - l_discount)) as revenue
 * from lineitem, part
 * where (p_partkey = l_partkey and p_brand = '[BRAND1]' and p_container in ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
 *        and l_quantity &gt;= [QUANTITY1] and l_quantity &lt;= [QUANTITY1] + 10 and p_size between 1 and 5
 *        and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')
 *    or (p_partkey = l_partkey and p_brand = '[BRAND2]' and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
 *        and l_quantity &gt;= [QUANTITY2] and l_quantity &lt;= [QUANTITY2] + 10 and p_size between 1 and 10
 *        and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')
 *    or (p_partkey = l_partkey and p_brand = '[BRAND3]' and p_container in ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
 *        and l_quantity &gt;= [QUANTITY3] and l_quantity &lt;= [QUANTITY3] + 10 and p_size between 1 and 15
 *        and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')
 * </pre>
 */
public final class Q19 implements TpchQuery {
  private static final String[][] CONTAINERS = {
      {"SM CASE", "SM BOX", "SM PACK", "SM PKG"},
      {"MED BAG", "MED BOX", "MED PKG", "MED PACK"},
      {"LG CASE", "LG BOX", "LG PACK", "LG PKG"}};
  private static final int[] MAX_SIZE = {5, 10, 15};

  @Override
  public int number() {
    return 19;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    Expr[] partTerms = new Expr[3];
    Expr[] branches = new Expr[3];
    for (int i = 0; i < 3; i++) {
      int quantity = parameters.integer("QUANTITY" + (i + 1));
      partTerms[i] = and(
          col("p_brand").eq(lit(parameters.text("BRAND" + (i + 1)))),
          col("p_container").in(lit(CONTAINERS[i][0]), lit(CONTAINERS[i][1]), lit(CONTAINERS[i][2]), lit(CONTAINERS[i][3])),
          col("p_size").between(lit(1), lit(MAX_SIZE[i])));
      branches[i] = and(partTerms[i], col("l_quantity").ge(lit(quantity)), col("l_quantity").le(lit(quantity + 10)));
    }
    Relation parts = Relation.scan(db.table("part"), context)
        .filter(or(partTerms))
        .select("p_partkey", "p_brand", "p_container", "p_size");
    return Relation.scan(db.table("lineitem"), context)
        .filter(and(col("l_shipmode").in(lit("AIR"), lit("AIR REG")), col("l_shipinstruct").eq(lit("DELIVER IN PERSON"))))
        .select("l_partkey", "l_quantity", "l_extendedprice", "l_discount")
        .join(parts).on("l_partkey", "p_partkey")
        .keep("l_quantity", "l_extendedprice", "l_discount", "p_brand", "p_container", "p_size")
        .filter(or(branches))
        .aggregate(List.of(), Aggregate.sum(col("l_extendedprice").mul(lit(1).sub(col("l_discount"))), "revenue"))
        .toTable();
  }
}
