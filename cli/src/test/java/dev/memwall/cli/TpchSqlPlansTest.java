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
  void sqlPlansAreVerifiedAgainstDuckDb() {
    MemwallCliTest.Run run = tpch("--plans", "sql", "--queries", "6,16,22");
    assertEquals(0, run.exitCode(), "stderr: " + run.err() + run.out());
    String out = run.out();
    assertTrue(out.contains("on memwall (plans from SQL), 2 threads"), out);
    for (String query : List.of("Q6 ", "Q16 ", "Q22 ")) {
      assertTrue(out.lines().anyMatch(line -> line.startsWith(query) && line.strip().endsWith("yes")), query + out);
    }
    assertTrue(out.lines().anyMatch(line -> line.startsWith("total ") && !line.contains("NO")), out);
    assertEquals("", run.err().strip(), "nothing refused or failed");
  }

  @Test
  void plansTakeHandOrSqlAndSqlPlansAreMemwalls() {
    tpch("--plans", "duckdb").failedWith(2, "--plans is 'hand' or 'sql', not 'duckdb'");
    tpch("--plans", "sql", "--engine", "spark").failedWith(2, "--plans sql is memwall's: not with --engine spark");
  }
}
