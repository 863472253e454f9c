package dev.memwall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.tpch.run.TpchRunner.QueryReport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a run's reports become its exit code and stderr lines, a refused query included. */
class QueryFailuresTest {

  private static QueryReport ran(int query, Boolean verified) {
    return new QueryReport(query, 1, 1, 1, 1, verified, "", -1, -1, -1, List.of(), List.of(), List.of(), null);
  }

  private static String exit(List<QueryReport> reports, int expectedCode) {
    StringWriter err = new StringWriter();
    assertEquals(expectedCode, QueryFailures.exitCode(reports, new PrintWriter(err)));
    return err.toString().strip();
  }

  @Test
  void aRefusedQueryIsNamedButChangesNoExitCode() {
    QueryReport refused = QueryReport.failed(16, "refused: root > set: relation set");
    assertEquals("[Q16] refused by the SQL path (not run; see the table for why)",
        exit(List.of(ran(1, true), refused), 0));
  }

  @Test
  void aFailureWinsOverAWrongAnswerAndAWrongAnswerOverSuccess() {
    QueryReport failed = QueryReport.failed(3, "budget exceeded");
    assertEquals("Q3 failed: budget exceeded", exit(List.of(ran(1, false), failed), MemwallCli.EXIT_RESOURCE));
    assertEquals("", exit(List.of(ran(1, false), ran(2, true)), MemwallCli.EXIT_VERIFICATION_FAILED));
    assertEquals("", exit(List.of(ran(1, true), ran(2, null)), 0));
  }
}
