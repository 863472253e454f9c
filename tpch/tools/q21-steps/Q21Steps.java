import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.core.expr.Expr;
import dev.memwall.join.relational.Relation;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.tpch.data.TpchDatabase;
import java.nio.file.Path;
import java.util.*;

/**
 * Q21's plan (tpch/src/main/java/dev/memwall/tpch/query/Q21.java) split at its materialized tables and
 * timed step by step, on 1 and 2 threads alternating in one process (12 rounds, the last 4 printed), with
 * the aggregation by l_orderkey timed on its own: where the second thread helps and where it does not.
 * Run from the repository root after ./memwall has built: see run.sh.
 */
public class Q21Steps {
  public static void main(String[] a) throws Exception {
    try (EngineMemory memory = EngineMemory.create("q21"); TpchDatabase db = TpchDatabase.open(Path.of(a[0]), 1, memory)) {
      for (int round = 0; round < 12; round++) {
        int threads = round % 2 == 0 ? 1 : 2;
        ExecutionContext context = new ExecutionContext(memory, threads);
        long[] t = new long[6];
        long s0 = System.nanoTime();
        Expr late = col("l_receiptdate").gt(col("l_commitdate"));
        try (Relation nation = Relation.scan(db.table("nation"), context).filter(col("n_name").eq(lit("SAUDI ARABIA"))).select("n_nationkey");
             Relation suppliers = Relation.scan(db.table("supplier"), context).join(nation).on("s_nationkey", "n_nationkey").keep("s_suppkey", "s_name")) {
          Table lateLines = Relation.scan(db.table("lineitem"), context).join(suppliers).on("l_suppkey", "s_suppkey")
              .keep("l_orderkey", "l_receiptdate", "l_commitdate", "s_name").filter(late).select("l_orderkey", "s_name").toTable();
          t[0] = System.nanoTime();
          Table candidateOrders = Relation.scan(db.table("orders"), context).filter(col("o_orderstatus").eq(lit("F"))).select("o_orderkey")
              .semiJoin(Relation.scan(lateLines, context)).on("o_orderkey", "l_orderkey").keep("o_orderkey").toTable();
          t[1] = System.nanoTime();
          Table lines = Relation.scan(db.table("lineitem"), context).semiJoin(Relation.scan(candidateOrders, context)).on("l_orderkey", "o_orderkey")
              .keep("l_orderkey", "l_suppkey", "l_receiptdate", "l_commitdate").toTable();
          t[2] = System.nanoTime();
          Relation multi = Relation.scan(lines, context).aggregate(List.of(col("l_orderkey").as("multi_orderkey")),
              Aggregate.min(col("l_suppkey"), "min_suppkey"), Aggregate.max(col("l_suppkey"), "max_suppkey")).filter(col("min_suppkey").ne(col("max_suppkey")));
          Relation single = Relation.scan(lines, context).filter(late).aggregate(List.of(col("l_orderkey").as("single_orderkey")),
              Aggregate.min(col("l_suppkey"), "min_suppkey"), Aggregate.max(col("l_suppkey"), "max_suppkey")).filter(col("min_suppkey").eq(col("max_suppkey")));
          long a0 = System.nanoTime();
          Table multiTable = Relation.scan(lines, context).aggregate(List.of(col("l_orderkey").as("multi_orderkey")),
              Aggregate.min(col("l_suppkey"), "min_suppkey"), Aggregate.max(col("l_suppkey"), "max_suppkey")).toTable();
          long a1 = System.nanoTime();
          if (round >= 8) System.out.printf("  threads %d aggregation of %d lines into %d groups: %.1f ms%n", threads, lines.rowCount(), multiTable.rowCount(), (a1 - a0) / 1e6);
          multiTable.close();
          t[2] += System.nanoTime() - a0;
          Table result = Relation.scan(lateLines, context).semiJoin(multi).on("l_orderkey", "multi_orderkey").keep("l_orderkey", "s_name")
              .semiJoin(single).on("l_orderkey", "single_orderkey").keep("s_name")
              .aggregate(List.of(col("s_name").as("s_name")), Aggregate.countStar("numwait")).toTable();
          t[3] = System.nanoTime();
          if (round >= 8) System.out.printf("threads %d lateLines %.1f (%d rows) candidateOrders %.1f (%d) candidateLines %.1f (%d) rest %.1f total %.1f ms%n", threads,
              (t[0]-s0)/1e6, lateLines.rowCount(), (t[1]-t[0])/1e6, candidateOrders.rowCount(), (t[2]-t[1])/1e6, lines.rowCount(), (t[3]-t[2])/1e6, (t[3]-s0)/1e6);
          result.close(); lines.close(); candidateOrders.close(); lateLines.close(); multi.close(); single.close();
        }
      }
    }
  }
}
