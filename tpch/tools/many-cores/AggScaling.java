import static dev.memwall.core.expr.Expr.col;

import com.sun.management.OperatingSystemMXBean;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A grouped count and sum of ROWS int64 keys drawn at random from each of GROUPS (comma-separated)
 * domains, on each of THREADS (comma-separated) threads: the median, least and greatest wall time of 5
 * runs after 2 warm-ups, the median process CPU time (all threads, the collector's and compilers'
 * too), and the aggregation's last SpillReport (its partitions tell whether the tables merged by
 * partitions). For the 16-core machine (scaling.sh with AGG=1) or here; an optional fourth argument
 * labels the lines. Usage: AggScaling ROWS GROUPS THREADS [LABEL]
 */
public class AggScaling {
  public static void main(String[] args) {
    int rows = Integer.parseInt(args[0]);
    int[] groupCounts = Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray();
    int[] threadCounts = Arrays.stream(args[2].split(",")).mapToInt(Integer::parseInt).toArray();
    String label = args.length > 3 ? args[3] : "";
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    try (EngineMemory memory = EngineMemory.create("agg-scaling")) {
      for (int groups : groupCounts) {
        try (Table table = table(memory, rows, groups)) {
          Plan plan = Plan.scan(table).aggregate(List.of(col("k").as("k")), Aggregate.countStar("n"), Aggregate.sum(col("v"), "s"));
          for (int threads : threadCounts) {
            List<SpillReport> reports = new ArrayList<>();
            ExecutionContext context = ExecutionContext.builder(memory).threads(threads).spillReports(reports::add).build();
            long[] wall = new long[5];
            long[] cpu = new long[5];
            long outRows = 0;
            for (int i = -2; i < wall.length; i++) {
              long c0 = os.getProcessCpuTime();
              long w0 = System.nanoTime();
              try (Table result = plan.execute(context)) {
                outRows = result.rowCount();
              }
              if (i >= 0) {
                wall[i] = System.nanoTime() - w0;
                cpu[i] = os.getProcessCpuTime() - c0;
              }
            }
            Arrays.sort(wall);
            Arrays.sort(cpu);
            System.out.printf("%s rows %d groups %d (out %d) threads %2d: wall %8.1f ms (%.1f-%.1f), cpu %8.1f ms%n", label,
                rows, groups, outRows, threads, wall[2] / 1e6, wall[0] / 1e6, wall[4] / 1e6, cpu[2] / 1e6);
            System.out.println("   " + (reports.isEmpty() ? "no report" : reports.getLast()));
          }
        }
      }
    }
  }

  static Table table(EngineMemory memory, int rows, int groups) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "v"), List.of(ColumnType.INT64, ColumnType.INT64), memory.arrow())) {
      long state = 42;
      for (int r = 0; r < rows; r++) {
        state = state * 6364136223846793005L + 1442695040888963407L;
        long key = Long.remainderUnsigned(state >>> 11, groups) * 32 + 7;
        builder.appendLong(key).appendLong(r & 1023).endRow();
      }
      return builder.build();
    }
  }
}
