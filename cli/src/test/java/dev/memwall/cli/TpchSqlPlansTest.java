package dev.memwall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.LeakCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code memwall tpch}'s plans: by default from the queries' SQL text, verified like the hand-written
 * ones, which {@code --plans hand} still runs.
 */
@ExtendWith(LeakCheck.class)
class TpchSqlPlansTest {
  @TempDir Path cache;

  private MemwallCliTest.Run tpch(String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("tpch", "--sf", "0.01", "--data", cache.toString(),
        "--runs", "1", "--warmup", "1", "--threads", "2", "--quiet", "--report", cache.resolve("report").toString()));
    args.addAll(List.of(more));
    return MemwallCliTest.execute(MemwallCli.commandLine(), args.toArray(String[]::new));
  }

  @Test
  void sqlPlansAreTheDefaultAndVerified() {
    MemwallCliTest.Run run = tpch("--queries", "6,16,22");
    assertEquals(0, run.exitCode(), "stderr: " + run.err() + run.out());
    String out = run.out();
    assertTrue(out.contains("on memwall, 2 threads") && out.contains("plan ms"), out);
    for (String query : List.of("Q6 ", "Q16 ", "Q22 ")) {
      assertTrue(out.lines().anyMatch(line -> line.startsWith(query) && line.strip().endsWith("yes")), query + out);
    }
    assertTrue(out.lines().anyMatch(line -> line.startsWith("total ") && !line.contains("NO")), out);
    assertEquals("", run.err().strip(), "nothing refused or failed");
  }

  @Test
  void sqlPlansReportTheirPlanningApart() throws Exception {
    MemwallCliTest.Run run = tpch("--plans", "sql", "--queries", "1,6");
    assertEquals(0, run.exitCode(), "stderr: " + run.err() + run.out());
    assertTrue(run.out().lines().anyMatch(line -> line.startsWith("query") && line.contains("median ms  plan ms")), run.out());
    for (String query : List.of("Q1", "Q6")) {
      List<String> cells = List.of(run.out().lines().filter(line -> line.startsWith(query + " ")).findFirst()
          .orElseThrow().strip().split("\\s+"));
      double median = Double.parseDouble(cells.get(3));
      double plan = Double.parseDouble(cells.get(4));
      assertTrue(plan > 0 && plan <= median, "planning is part of the run's time: " + cells);
    }
    List<String> csv = Files.readAllLines(cache.resolve("report").resolve("tpch-sf0.01-2t.csv"));
    assertTrue(csv.get(0).endsWith(",plan_ms,failure"), csv.get(0));
    for (String row : csv.subList(1, csv.size())) {
      String[] cells = row.split(",", -1);
      assertTrue(Double.parseDouble(cells[12]) > 0 && Double.parseDouble(cells[12]) <= Double.parseDouble(cells[3]), row);
    }
    assertTrue(Files.readString(cache.resolve("report").resolve("tpch-sf0.01-2t.md")).contains("| plan ms |"));

    MemwallCliTest.Run hand = tpch("--plans", "hand", "--queries", "6");
    assertEquals(0, hand.exitCode(), "stderr: " + hand.err() + hand.out());
    assertTrue(hand.out().contains("on memwall (hand-written plans), 2 threads"), hand.out());
    assertTrue(hand.out().lines().noneMatch(line -> line.contains("plan ms")), "hand plans are not planned: " + hand.out());
    assertTrue(Files.exists(cache.resolve("report").resolve("tpch-memwall-hand-sf0.01-2t.md")), "a report of its own");
  }

  @Test
  void plansTakeHandOrSqlAndSqlPlansAreMemwalls() {
    tpch("--plans", "duckdb").failedWith(2, "--plans is 'hand' or 'sql', not 'duckdb'");
    tpch("--plans", "sql", "--engine", "spark").failedWith(2, "--plans is memwall's: not with --engine spark");
    tpch("--plans", "hand", "--engine", "spark").failedWith(2, "--plans is memwall's: not with --engine spark");
  }
}
