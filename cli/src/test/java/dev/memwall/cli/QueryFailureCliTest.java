package dev.memwall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.cli.MemwallCliTest.Run;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.LoopQ6;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchQuery;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Limits that protect: a query that fails under {@code --budget} is a FAILED row naming the query and
 * the reason, in the printed table, the Markdown and the CSV, while the other queries' results and
 * the report are still written (exit code 3, one line on stderr); {@code --threads} beyond
 * {@value ThreadCap#PER_CORE} per core is cut with a warning.
 */
@ExtendWith(LeakCheck.class)
class QueryFailureCliTest {
  @TempDir Path cache;

  /** Q2 here needs 64 MiB of working memory; Q6 is the loop Q6, which needs next to none. */
  private static Run run(String... args) {
    IntFunction<TpchQuery> queries = number -> switch (number) {
      case 6 -> new LoopQ6();
      case 2 -> new HungryQuery(2);
      default -> throw new IllegalArgumentException("TPC-H query " + number + " is not implemented in this test");
    };
    return MemwallCliTest.execute(MemwallCli.commandLine(queries, () -> List.of(2, 6)), args);
  }

  /** A query that asks its context's memory for 64 MiB, as a hash table sized for a big build side would. */
  private record HungryQuery(int number) implements TpchQuery {
    @Override
    public Table run(TpchDatabase database, QueryParameters parameters, ExecutionContext context) {
      try (OffHeapBuffer table = context.memory().allocate(64L << 20)) {
        throw new AssertionError("a 64 MiB allocation passed a 16 MiB budget: " + table);
      }
    }
  }

  private String[] tpch(String... more) {
    List<String> args = new ArrayList<>(List.of("tpch", "--sf", "0.01", "--data", cache.toString(), "--runs", "2",
        "--warmup", "1", "--threads", "2", "--quiet", "--verify", "none", "--report", cache.resolve("report").toString(),
        "--plans", "hand"));
    args.addAll(Arrays.asList(more));
    return args.toArray(String[]::new);
  }

  @Test
  void aQueryFailingUnderTheBudgetIsReportedAndTheOthersStillRun() throws Exception {
    assertEquals(0, run(tpch("--queries", "6")).exitCode(), "generating the data without a budget");
    for (String scope : List.of("suite", "query")) {
      Run run = run(tpch("--queries", "2,6", "--budget", "16m", "--warmup-scope", scope));
      run.failedWith(MemwallCli.EXIT_RESOURCE, "Q2 failed: ");
      assertTrue(run.err().contains("memory budget"), "the reason: " + run.err());
      List<String> q2 = cells(run.out(), "Q2 ");
      assertEquals(List.of("Q2", "-", "-", "-", "-", "FAILED"), q2, run.out());
      List<String> q6 = cells(run.out(), "Q6 ");
      assertEquals(List.of("Q6", "1"), q6.subList(0, 2), run.out());
      assertTrue(Double.parseDouble(q6.get(3)) > 0, "Q6 still timed: " + run.out());
      assertTrue(run.out().lines().anyMatch(l -> l.startsWith("Q2 FAILED: ") && l.contains("memory budget")), run.out());
      assertTrue(run.out().contains("report: "), "the report is still written: " + run.out());

      Path report = cache.resolve("report");
      String markdown = Files.readString(report.resolve("tpch-memwall-hand-sf0.01-2t.md"));
      assertTrue(markdown.contains("| Q2 | | | | | FAILED: ") && markdown.contains("| Q6 | 1 | "), markdown);
      List<String> csv = Files.readAllLines(report.resolve("tpch-memwall-hand-sf0.01-2t.csv"));
      assertEquals(3, csv.size(), csv.toString());
      assertTrue(csv.get(1).startsWith("2,,,,,failed,,,,,,,,\"") && csv.get(1).contains("memory budget"), csv.get(1));
      assertTrue(csv.get(2).startsWith("6,1,"), csv.get(2));
      assertEquals(14, csv.get(0).split(",").length, csv.get(0));
    }
  }

  @Test
  void threadsBeyondFourPerCoreAreCutWithAWarning() {
    StringWriter err = new StringWriter();
    PrintWriter writer = new PrintWriter(err, true);
    assertEquals(8, ThreadCap.threads(10_000, 2, writer));
    assertTrue(err.toString().startsWith("warning: --threads 10000 is more than 4 per core on this 2-core machine;"
        + " using 8"), err.toString());
    StringWriter quiet = new StringWriter();
    assertEquals(8, ThreadCap.threads(8, 2, new PrintWriter(quiet, true)));
    assertEquals(3, ThreadCap.threads(null, 3, new PrintWriter(quiet, true)));
    assertEquals(0, ThreadCap.threads(0, 2, new PrintWriter(quiet, true)), "refused by the runner's own check");
    assertEquals("", quiet.toString());

    int cores = Runtime.getRuntime().availableProcessors();
    Run run = run(tpch("--queries", "6", "--threads", "10000"));
    assertEquals(0, run.exitCode(), run.err() + run.out());
    assertTrue(run.err().contains("using " + 4 * cores), run.err());
    int used = 4 * cores;
    assertTrue(run.out().contains(used + " threads"), "the title names the threads used: " + run.out());
  }

  @Test
  void helpListsTheExitCodes() {
    Run help = MemwallCliTest.execute(MemwallCli.commandLine(), "--help");
    assertTrue(help.out().contains("Exit codes:"), help.out());
    String codes = help.out().substring(help.out().indexOf("Exit codes:")).replaceAll("\\s+", " ");
    for (String code : List.of("0 success", "1 a query result failed verification", "2 bad input",
        "3 a data or resource problem", "failed under --budget", "4 an unexpected internal error")) {
      assertTrue(codes.contains(code), code + " in " + codes);
    }
  }

  private static List<String> cells(String out, String prefix) {
    String line = out.lines().filter(l -> l.startsWith(prefix)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + prefix + "line: " + out));
    return Arrays.asList(line.trim().split("\\s+"));
  }
}
