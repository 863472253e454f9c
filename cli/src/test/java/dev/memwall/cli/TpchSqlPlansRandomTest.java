package dev.memwall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.LeakCheck;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code memwall tpch --plans sql} at SF 0.1 with random parameters: for each seed the 22 queries'
 * SQL text, parameters drawn by the specification's rules, planned by the SQL path and verified
 * against DuckDB on the same data; all 22 queries must match.
 *
 * <p>Expensive (generates SF 0.1, about 90 MiB, into a temporary directory, and runs every query on
 * memwall and in DuckDB for each seed: a few minutes on 2 cores), so only with {@code
 * -Dmemwall.tpch.sqlRandom=true}: {@code ./mvnw -B -q -pl cli -am test -Dtest=TpchSqlPlansRandomTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dmemwall.tpch.sqlRandom=true}, with the seeds in {@code
 * -Dmemwall.tpch.sqlSeeds=1,2,3} (those by default).
 */
@ExtendWith(LeakCheck.class)
@EnabledIfSystemProperty(named = "memwall.tpch.sqlRandom", matches = "true")
class TpchSqlPlansRandomTest {
  @TempDir Path cache;

  @Test
  void sqlPlansMatchDuckDbAtScaleFactorATenthForRandomParameters() {
    List<String> failures = new ArrayList<>();
    for (String seed : System.getProperty("memwall.tpch.sqlSeeds", "1,2,3").split(",")) {
      MemwallCliTest.Run run = MemwallCliTest.execute(MemwallCli.commandLine(), "tpch", "--sf", "0.1", "--data",
          cache.toString(), "--plans", "sql", "--seed", seed.strip(), "--verify", "duckdb", "--runs", "1",
          "--warmup", "1", "--threads", "2", "--quiet", "--report", cache.resolve("report").toString());
      System.out.println(run.out());
      assertEquals(0, run.exitCode(), "seed " + seed + ": " + run.err() + run.out());
      for (int query : IntStream.rangeClosed(1, 22).boxed().toList()) {
        String expected = "yes";
        boolean found = run.out().lines()
            .anyMatch(line -> line.startsWith("Q" + query + " ") && line.strip().endsWith(expected));
        if (!found) {
          failures.add("seed " + seed + ": Q" + query + " is not '" + expected + "'");
        }
      }
    }
    assertTrue(failures.isEmpty(), String.join("\n", failures));
  }
}
