import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.pipeline.HashProbeStage;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;

/**
 * Q3's plan (tpch/src/main/java/dev/memwall/tpch/query/Q3.java) split at its materialized tables and
 * timed step by step, on 1 and 2 threads alternating in one process: per step the median wall time and
 * the median CPU time of the query's threads (the calling thread and the one executor thread) over the
 * last half of the rounds. CPU time over wall time shows how much of a step runs on both threads (on a
 * quiet machine), and the CPU times compare builds on a busy one.
 * Steps: the customers of the segment; the orders joined with them (the lineitem join's build side);
 * the hash table on that alone; the lineitem scan and filter alone (a count); the lineitem join, its
 * hash table built again and its pairs counted; the rest of the query from that join (table, probe,
 * aggregation, top 10). Run with run.sh.
 */
public class Q3Steps {
  static final String[] NAMES = {"customers", "orders⋈customers", "build table", "lineitem filter", "probe count", "probe+agg+top"};

  public static void main(String[] a) throws Exception {
    java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    List<Thread> pool = new java.util.concurrent.CopyOnWriteArrayList<>();
    pool.add(Thread.currentThread());
    java.util.concurrent.ExecutorService executor = java.util.concurrent.Executors.newFixedThreadPool(1, r -> {
      Thread t = new Thread(r, "q3-worker");
      t.setDaemon(true);
      pool.add(t);
      return t;
    });
    java.util.function.LongSupplier cpuNow = () -> pool.stream().mapToLong(t -> mx.getThreadCpuTime(t.threadId())).sum();
    LocalDate day = LocalDate.of(1995, 3, 15);
    int rounds = a.length > 1 ? Integer.parseInt(a[1]) : 40;
    long[][][] wall = new long[3][NAMES.length][rounds];
    long[][][] cpu = new long[3][NAMES.length][rounds];
    try (EngineMemory memory = EngineMemory.create("q3"); TpchDatabase db = TpchDatabase.open(Path.of(a[0]), 1, memory)) {
      for (int round = 0; round < 2 * rounds; round++) {
        int threads = round % 2 == 0 ? 1 : 2;
        ExecutionContext context = ExecutionContext.builder(memory).threads(threads).executor(executor).build();
        long[] w = new long[NAMES.length + 1];
        long[] c = new long[NAMES.length + 1];
        int s = 0;
        w[s] = System.nanoTime(); c[s++] = cpuNow.getAsLong();
        Table customers = Relation.scan(db.table("customer"), context).filter(col("c_mktsegment").eq(lit("BUILDING")))
            .select("c_custkey").toTable();
        w[s] = System.nanoTime(); c[s++] = cpuNow.getAsLong();
        Table orders = Relation.scan(db.table("orders"), context).filter(col("o_orderdate").lt(date(day)))
            .select("o_orderkey", "o_custkey", "o_orderdate", "o_shippriority")
            .join(Relation.scan(customers, context)).on("o_custkey", "c_custkey").keep("o_orderkey", "o_orderdate", "o_shippriority")
            .toTable();
        w[s] = System.nanoTime(); c[s++] = cpuNow.getAsLong();
        try (HashProbeStage stage = HashProbeStage.build(orders, List.of("o_orderkey"), JoinType.INNER, List.of("l_orderkey"),
            List.of(ColumnType.INT64), List.of("l_orderkey", "l_extendedprice", "l_discount"), List.of("o_orderdate", "o_shippriority"),
            context.machine().fastCacheBytes(), context)) {
        }
        w[s] = System.nanoTime(); c[s++] = cpuNow.getAsLong();
        Relation.scan(db.table("lineitem"), context).filter(col("l_shipdate").gt(date(day))).select("l_orderkey")
            .aggregate(List.of(), Aggregate.countStar("n")).toTable().close();
        w[s] = System.nanoTime(); c[s++] = cpuNow.getAsLong();
        Relation.scan(db.table("lineitem"), context).filter(col("l_shipdate").gt(date(day))).select("l_orderkey", "l_extendedprice", "l_discount")
            .join(Relation.scan(orders, context)).on("l_orderkey", "o_orderkey").keep("l_orderkey", "l_extendedprice", "l_discount", "o_orderdate", "o_shippriority")
            .aggregate(List.of(), Aggregate.countStar("n")).toTable().close();
        w[s] = System.nanoTime(); c[s++] = cpuNow.getAsLong();
        Table result = Relation.scan(db.table("lineitem"), context).filter(col("l_shipdate").gt(date(day))).select("l_orderkey", "l_extendedprice", "l_discount")
            .join(Relation.scan(orders, context)).on("l_orderkey", "o_orderkey").keep("l_orderkey", "l_extendedprice", "l_discount", "o_orderdate", "o_shippriority")
            .aggregate(List.of(col("l_orderkey").as("l_orderkey")),
                Aggregate.sum(col("l_extendedprice").mul(lit(1).sub(col("l_discount"))), "revenue"),
                Aggregate.min(col("o_orderdate"), "o_orderdate"), Aggregate.min(col("o_shippriority"), "o_shippriority"))
            .orderBy(SortKey.desc("revenue"), SortKey.asc("o_orderdate")).limit(10).toTable();
        w[s] = System.nanoTime(); c[s++] = cpuNow.getAsLong();
        if (round == 0) {
          System.out.printf("customers %d, orders⋈customers %d rows%n", customers.rowCount(), orders.rowCount());
        }
        result.close(); orders.close(); customers.close();
        for (int i = 0; i < NAMES.length; i++) {
          wall[threads][i][round / 2] = w[i + 1] - w[i];
          cpu[threads][i][round / 2] = c[i + 1] - c[i];
        }
      }
    }
    int from = rounds / 2; // the first half warms up
    for (int threads = 1; threads <= 2; threads++) {
      StringBuilder line = new StringBuilder("threads " + threads + ":");
      for (int i = 0; i < NAMES.length; i++) {
        line.append(String.format("  %s %.2f ms (cpu %.2f)", NAMES[i], median(wall[threads][i], from) / 1e6, median(cpu[threads][i], from) / 1e6));
      }
      System.out.println(line);
    }
  }

  static long median(long[] values, int from) {
    long[] v = Arrays.copyOfRange(values, from, values.length);
    Arrays.sort(v);
    return v[v.length / 2];
  }
}
