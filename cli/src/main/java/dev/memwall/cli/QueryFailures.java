package dev.memwall.cli;

import dev.memwall.tpch.run.TpchRunner.QueryReport;
import java.io.PrintWriter;
import java.util.List;

/**
 * The exit code of a {@code memwall tpch} run that produced its table: {@link MemwallCli#EXIT_RESOURCE}
 * when a query could not run (its memory budget or spill disk; the table and the report still hold
 * every query, the failed ones marked with their reason), else {@link MemwallCli#EXIT_VERIFICATION_FAILED}
 * when a result failed verification, else 0. A failed query also gets one line on stderr naming it
 * and why (and how many others failed), so that a script sees the cause without parsing the table.
 * A query the engine refused ({@code --plans sql}: its SQL text is outside what the SQL path plans)
 * is named on stderr too but does not change the exit code: it is a known limit of that path, not a
 * failure of this run.
 */
final class QueryFailures {
  private QueryFailures() {}

  static int exitCode(List<QueryReport> reports, PrintWriter err) {
    List<QueryReport> refused = reports.stream().filter(QueryReport::refused).toList();
    if (!refused.isEmpty()) {
      err.println(refused.stream().map(r -> "Q" + r.query()).toList() + " refused by the SQL path (not run; see the "
          + "table for why)");
      err.flush();
    }
    List<QueryReport> failed = reports.stream().filter(r -> r.failed() && !r.refused()).toList();
    if (!failed.isEmpty()) {
      QueryReport first = failed.getFirst();
      err.println("Q" + first.query() + " failed: " + first.failure() + (failed.size() == 1 ? ""
          : " (and " + (failed.size() - 1) + " more failed queries: see the table)"));
      err.flush();
      return MemwallCli.EXIT_RESOURCE;
    }
    return reports.stream().anyMatch(r -> Boolean.FALSE.equals(r.verified())) ? MemwallCli.EXIT_VERIFICATION_FAILED : 0;
  }
}
