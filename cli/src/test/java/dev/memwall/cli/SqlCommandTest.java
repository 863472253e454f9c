package dev.memwall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.tpch.query.TpchQueries;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code memwall sql} in-process over the TPC-H tables at SF 0.01 (generated once for the class). */
class SqlCommandTest {
  @TempDir static Path cache;

  private static MemwallCliTest.Run sql(String console, String... args) {
    CommandLine line = MemwallCli.commandLine(TpchQueries::require, TpchQueries::implemented,
        () -> new StringReader(console));
    List<String> all = new java.util.ArrayList<>(List.of("sql", "--sf", "0.01", "--data", cache.toString(), "--quiet",
        "--threads", "2"));
    all.addAll(List.of(args));
    return MemwallCliTest.execute(line, all.toArray(String[]::new));
  }

  @Test
  void aStatementPrintsAnAlignedTableCappedAtMaxRows() {
    MemwallCliTest.Run run = sql("", "select n_name, n_nationkey from nation where n_regionkey = 1 order by n_name");
    assertEquals(0, run.exitCode(), run.err());
    assertEquals(List.of(
        "n_name        | n_nationkey",
        "--------------+------------",
        "ARGENTINA     |           1",
        "BRAZIL        |           2",
        "CANADA        |           3",
        "PERU          |          17",
        "UNITED STATES |          24",
        "(5 rows)"), run.out().lines().toList());
    MemwallCliTest.Run capped = sql("", "--max-rows", "2", "select n_name from nation where n_regionkey = 1 "
        + "order by n_name;");
    assertEquals(List.of("n_name", "---------", "ARGENTINA", "BRAZIL", "(5 rows, the first 2 shown: raise --max-rows for more)"),
        capped.out().lines().toList());
  }

  @Test
  void explainPrintsMemwallsPlanWithoutRunning() {
    String query = "select o_orderpriority, count(*) as n from orders, lineitem where o_orderkey = l_orderkey "
        + "group by o_orderpriority";
    MemwallCliTest.Run option = sql("", "--explain", query);
    assertEquals(0, option.exitCode(), option.err());
    assertTrue(option.out().contains("join") && option.out().contains("output [o_orderpriority, n]"), option.out());
    MemwallCliTest.Run statement = sql("", "EXPLAIN PLAN FOR " + query);
    assertEquals(option.out(), statement.out());
    assertEquals(option.out(), sql("", "explain " + query).out());
  }

  @Test
  void refusedStatementsAreOneLineAndExitCodeTwo() {
    sql("", "select nope from nation").failedWith(2, "Column 'nope' not found");
    sql("", "select from where").failedWith(2, "SQL does not parse");
    sql("", "select n_name from nation union all select r_name from region").failedWith(2, "relation set");
    sql("", "--max-rows", "-1", "select 1 from region").failedWith(2, "--max-rows is 0 or more");
  }

  @Test
  void thePromptReadsStatementsUntilTheSemicolonAndKeepsAHistory() {
    MemwallCliTest.Run run = sql("select count(*) as n\n  from region;\n\nhistory\nselect nope\nfrom region;\n!1\n!7\n"
        + "explain select r_name from region;\nquit\nselect 1 from region;\n");
    assertEquals(0, run.exitCode(), run.err());
    String out = run.out();
    assertEquals(2, out.split("\\(1 row\\)", -1).length - 1, "the count ran twice (again as !1): " + out);
    assertTrue(out.contains("1  select count(*) as n\n  from region;"), out);
    assertTrue(out.contains("      -> "), "a continuation prompt: " + out);
    assertTrue(out.contains("output [r_name]"), out);
    List<String> errors = run.err().lines().toList();
    assertEquals(2, errors.size(), run.err());
    assertTrue(errors.get(0).startsWith("memwall sql: ") && errors.get(0).contains("nope"), errors.get(0));
    assertEquals("memwall sql: no statement !7 in the history (1 to 3)", errors.get(1));
  }
}
