import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.sql.Memwall;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.SubstraitPlans;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.query.TpchQueries;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.run.TpchCatalog;
import dev.memwall.tpch.verify.DuckDbOracle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * A TPC-H query's hand-written plan against its plan from SQL, timed by the calling thread's CPU time
 * on one thread (where a query runs on the caller), which other processes disturb far less than wall
 * time. Three ways are alternated run by run in one process: the hand plan, the SQL plan prepared once
 * and executed (execution alone), and preparing the SQL plan (planning alone). Each is warmed 15 times
 * (planning 200 more, as Calcite's many small methods compile late), then 25 rounds are timed; medians
 * and least are printed, and execution's ratio to the hand plan.
 *
 * <p>Alternating in one process lets each way's code be compiled with the others' type profiles, which
 * favours the SQL plans (a hand plan run among them slows down); a mode other than {@code all} times
 * one way per process, as users run them: {@code hand}, {@code sql} (execution and planning
 * alternated) or {@code sqlexec} (execution alone). On more than one thread only the wall times mean
 * anything. Usage: SqlCpu DIR THREADS QUERIES [all|hand|sql|sqlexec]
 */
public class SqlCpu {
  /** Which ways one process times. */
  private enum Mode {
    ALL, HAND, SQL, SQLEXEC;

    boolean hand() {
      return this == ALL || this == HAND;
    }

    boolean execute() {
      return this != HAND;
    }

    boolean plan() {
      return this == ALL || this == SQL;
    }
  }

  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  public static void main(String[] args) throws Exception {
    try (EngineMemory memory = EngineMemory.create("sql-cpu");
        TpchDatabase db = TpchDatabase.open(Path.of(args[0]), 1, memory)) {
      ExecutionContext context = new ExecutionContext(memory, Integer.parseInt(args[1]));
      Catalog catalog = TpchCatalog.of(db);
      Mode mode = args.length > 3 ? Mode.valueOf(args[3].toUpperCase(Locale.ROOT)) : Mode.ALL;
      for (String q : args[2].split(",")) {
        TpchQuery query = TpchQueries.require(Integer.parseInt(q));
        QueryParameters parameters = TpchParameters.validation(query.number(), db.scaleFactor());
        String sql = DuckDbOracle.tpchSql(parameters);
        SubstraitPlans.Prepared prepared = Memwall.prepare(catalog, sql);
        Supplier<Table> hand = () -> query.run(db, parameters, context);
        Supplier<Table> execute = () -> SubstraitPlans.relation(prepared, context).toTable();
        Runnable plan = () -> Memwall.prepare(catalog, sql);
        String[] names = {"hand", "sql execute", "sql plan"};
        Runnable[] ways = {() -> hand.get().close(), () -> execute.get().close(), plan};
        boolean[] timed = {mode.hand(), mode.execute(), mode.plan()};
        for (int i = 0; i < 15; i++) {
          for (int k = 0; k < ways.length; k++) {
            if (timed[k]) {
              ways[k].run();
            }
          }
        }
        for (int i = 0; i < (mode.plan() ? 200 : 0); i++) {
          plan.run(); // planning runs far more often than a query's operators before its code is compiled
        }
        int rounds = 25;
        long[][] cpu = new long[ways.length][rounds];
        long[][] wall = new long[ways.length][rounds];
        for (int i = 0; i < rounds; i++) {
          for (int k = 0; k < ways.length; k++) {
            if (timed[k]) {
              time(ways[k], cpu[k], wall[k], i);
            }
          }
        }
        for (int k = 0; k < ways.length; k++) {
          if (!timed[k]) {
            continue;
          }
          Arrays.sort(cpu[k]);
          Arrays.sort(wall[k]);
          System.out.printf("Q%s %-12s thread cpu %7.2f ms (least %7.2f), wall %7.2f ms (least %7.2f)%n", q, names[k],
              cpu[k][rounds / 2] / 1e6, cpu[k][0] / 1e6, wall[k][rounds / 2] / 1e6, wall[k][0] / 1e6);
        }
        if (mode == Mode.ALL) {
          System.out.printf("Q%s execute/hand cpu %.2f (least %.2f)%n", q, (double) cpu[1][rounds / 2] / cpu[0][rounds / 2],
              (double) cpu[1][0] / cpu[0][0]);
        }
      }
    }
  }

  private static void time(Runnable run, long[] cpu, long[] wall, int i) {
    long c0 = CPU.getCurrentThreadCpuTime();
    long w0 = System.nanoTime();
    run.run();
    cpu[i] = CPU.getCurrentThreadCpuTime() - c0;
    wall[i] = System.nanoTime() - w0;
  }
}
