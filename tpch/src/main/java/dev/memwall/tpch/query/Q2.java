package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.util.List;

/**
 * TPC-H Q2, the minimum cost supplier query: for each part of one size and type, the suppliers of
 * one region offering it at the region's lowest cost. The correlated subquery is decorrelated:
 * the offers (partsupp rows of the qualifying parts whose supplier is in the region) are
 * materialized once, their minimum cost per part is an aggregate over them (exactly the
 * subquery's value for that part), and the offers join their part's minimum and keep those that
 * cost it. Parameters SIZE, TYPE, REGION (validation: 15, BRASS, EUROPE).
 *
 * <pre>
 * select s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
 * from part, supplier, partsupp, nation, region
 * where p_partkey = ps_partkey and s_suppkey = ps_suppkey and p_size = 15 and p_type like '%BRASS'
 *   and s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = 'EUROPE'
 *   and ps_supplycost = (select min(ps_supplycost) from partsupp, supplier, nation, region
 *                        where p_partkey = ps_partkey and s_suppkey = ps_suppkey
 *                          and s_nationkey = n_nationkey and n_regionkey = r_regionkey
 *                          and r_name = 'EUROPE')
 * order by s_acctbal desc, n_name, s_name, p_partkey
 * limit 100
 * </pre>
 */
public final class Q2 implements TpchQuery {
  @Override
  public int number() {
    return 2;
  }

  @Override
  public Table run(TpchDatabase db, QueryParameters parameters, ExecutionContext context) {
    Relation region = Relation.scan(db.table("region"), context)
        .filter(col("r_name").eq(lit(parameters.text("REGION"))));
    Relation nations = Relation.scan(db.table("nation"), context)
        .join(region).on("n_regionkey", "r_regionkey").keep("n_nationkey", "n_name");
    Relation suppliers = Relation.scan(db.table("supplier"), context)
        .join(nations).on("s_nationkey", "n_nationkey")
        .keep("s_suppkey", "s_acctbal", "s_name", "s_address", "s_phone", "s_comment", "n_name");
    Relation parts = Relation.scan(db.table("part"), context)
        .filter(and(col("p_size").eq(lit(parameters.integer("SIZE"))),
            col("p_type").like("%" + parameters.text("TYPE"))))
        .select("p_partkey", "p_mfgr");
    Relation offers = Relation.scan(db.table("partsupp"), context)
        .join(parts).on("ps_partkey", "p_partkey").keep("ps_partkey", "ps_suppkey", "ps_supplycost", "p_mfgr")
        .join(suppliers).on("ps_suppkey", "s_suppkey")
        .keep("ps_partkey", "ps_supplycost", "p_mfgr", "s_acctbal", "s_name", "s_address", "s_phone", "s_comment",
            "n_name");
    try (Table offered = offers.toTable()) {
      Relation lowestCost = Relation.scan(offered, context)
          .aggregate(List.of(col("ps_partkey").as("min_partkey")),
              Aggregate.min(col("ps_supplycost"), "min_supplycost"));
      return Relation.scan(offered, context)
          .join(lowestCost).on("ps_partkey", "min_partkey")
          .keep("s_acctbal", "s_name", "n_name", "ps_partkey", "p_mfgr", "s_address", "s_phone", "s_comment",
              "ps_supplycost", "min_supplycost")
          .filter(col("ps_supplycost").eq(col("min_supplycost")))
          .project(col("s_acctbal").as("s_acctbal"), col("s_name").as("s_name"), col("n_name").as("n_name"),
              col("ps_partkey").as("p_partkey"), col("p_mfgr").as("p_mfgr"), col("s_address").as("s_address"),
              col("s_phone").as("s_phone"), col("s_comment").as("s_comment"))
          .orderBy(SortKey.desc("s_acctbal"), SortKey.asc("n_name"), SortKey.asc("s_name"), SortKey.asc("p_partkey"))
          .limit(100)
          .toTable();
    }
  }
}
