import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.TpchQueries;
import dev.memwall.tpch.query.TpchQuery;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * TPC-H queries timed by the CPU time of the calling thread (on one thread a query runs there), which
 * other processes on the machine disturb far less than wall time: each query is warmed 15 times, then
 * run 25 times, and the median and least CPU and wall milliseconds are printed. For comparing two builds
 * on a busy machine; run.sh gives the command.
 */
public class QueryCpu {
  public static void main(String[] args) throws Exception {
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    int threads = Integer.parseInt(args[1]);
    try (EngineMemory memory = EngineMemory.create("query-cpu"); TpchDatabase db = TpchDatabase.open(Path.of(args[0]), 1, memory)) {
      ExecutionContext context = new ExecutionContext(memory, threads);
      for (String q : args[2].split(",")) {
        TpchQuery query = TpchQueries.require(Integer.parseInt(q));
        for (int i = 0; i < 15; i++) {
          try (Table t = query.run(db, context)) { }
        }
        long[] cpuNanos = new long[25];
        long[] wallNanos = new long[25];
        for (int i = 0; i < 25; i++) {
          long c0 = cpu.getCurrentThreadCpuTime();
          long w0 = System.nanoTime();
          try (Table t = query.run(db, context)) { }
          cpuNanos[i] = cpu.getCurrentThreadCpuTime() - c0;
          wallNanos[i] = System.nanoTime() - w0;
        }
        Arrays.sort(cpuNanos);
        Arrays.sort(wallNanos);
        System.out.printf("Q%s thread cpu %.1f ms (least %.1f), wall %.1f ms (least %.1f)%n", q, cpuNanos[12] / 1e6,
            cpuNanos[0] / 1e6, wallNanos[12] / 1e6, wallNanos[0] / 1e6);
      }
    }
  }
}
