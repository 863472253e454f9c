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

/** {@code memwall tpch --plans sql}: the queries' plans from their SQL text, verified like the hand-written ones. */
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
  void sqlPlansAreVerifiedAgainstDuckDbAndARefusedQueryIsReportedNotRunByHand() throws Exception {
    MemwallCliTest.Run run = tpch("--plans", "sql", "--queries", "6,16,22");
    assertEquals(0, run.exitCode(), "a refusal is a known limit of the SQL path; stderr: " + run.err() + run.out());
    String out = run.out();
    assertTrue(out.contains("on memwall (plans from SQL), 2 threads"), out);
    assertTrue(out.lines().anyMatch(line -> line.startsWith("Q6 ") && line.strip().endsWith("yes")), out);
    assertTrue(out.lines().anyMatch(line -> line.startsWith("Q22 ") && line.strip().endsWith("yes")), out);
    assertTrue(out.lines().anyMatch(line -> line.startsWith("Q16 ") && line.strip().endsWith("REFUSED")), out);
    assertTrue(out.contains("Q16 REFUSED, refused: root > "), out);
    assertTrue(out.lines().anyMatch(line -> line.startsWith("total ") && !line.contains("NO")), "a refusal is no failure: " + out);
    assertTrue(out.contains("subquery (InPredicate)"), "the reason is the SQL path's message: " + out);
    assertEquals("[Q16] refused by the SQL path (not run; see the table for why)", run.err().strip());
    Path markdown;
    try (var files = Files.list(cache.resolve("report"))) {
      markdown = files.filter(file -> file.getFileName().toString().startsWith("tpch-memwall-sql-")
          && file.toString().endsWith(".md")).findFirst().orElseThrow();
    }
    assertTrue(Files.readString(markdown).contains("| Q16 | | | | | refused: root > "), Files.readString(markdown));
  }

  @Test
  void plansTakeHandOrSqlAndSqlPlansAreMemwalls() {
    tpch("--plans", "duckdb").failedWith(2, "--plans is 'hand' or 'sql', not 'duckdb'");
    tpch("--plans", "sql", "--engine", "spark").failedWith(2, "--plans sql is memwall's: not with --engine spark");
  }
}
