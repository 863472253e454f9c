package dev.memwall.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.tpch.run.TpchRunner.QueryReport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The report's planning column: there, with each query's median planning time, only when the engine gave one. */
class TpchReportTest {
  private static final RunStamp STAMP = new RunStamp("2026-01-01 00:00", "abc1234", "2 cores");

  private static QueryReport ran(int query, long medianNanos, List<Long> planning) {
    return new QueryReport(query, 4, medianNanos, medianNanos, 3 * medianNanos, true, "ok", -1, -1, -1,
        List.of(medianNanos), List.of(), planning, null);
  }

  private static QueryReport compared(int query, long medianNanos, List<Long> planning) {
    return new QueryReport(query, 4, medianNanos, medianNanos, 3 * medianNanos, true, "ok", 2 * medianNanos,
        2 * medianNanos, 2 * medianNanos, List.of(medianNanos), List.of(2 * medianNanos), planning, null);
  }

  private static TpchReport report(String compared, QueryReport... reports) {
    return new TpchReport("TPC-H SF 1", "tpch-memwall-sql-sf1-2t", "memwall (plans from SQL)", compared,
        List.of(reports), STAMP);
  }

  /** The Markdown table's rows (header, alignment, queries, total), each split into its cells. */
  private static List<List<String>> rows(String markdown) {
    return markdown.lines().filter(line -> line.startsWith("|"))
        .map(line -> List.of(line.substring(1, line.length() - 1).split("\\|", -1)).stream().map(String::strip).toList())
        .toList();
  }

  @Test
  void planningTimesHaveAColumnAfterTheMedianAndSumInTheTotal() {
    TpchReport report = report(null, ran(1, 90_000_000, List.of(2_500_000L)), ran(6, 20_000_000, List.of(1_250_000L)),
        QueryReport.failed(16, "refused: root > set"));
    List<List<String>> rows = rows(report.markdown("chart.png"));
    assertEquals(List.of("query", "rows", "best ms", "median ms", "plan ms", "first ms", "verified"), rows.get(0));
    assertEquals(List.of("Q1", "4", "90.0", "90.0", "2.50", "270.0", "yes"), rows.get(2));
    assertEquals(List.of("Q6", "4", "20.0", "20.0", "1.25", "60.0", "yes"), rows.get(3));
    assertEquals(7, rows.get(4).size(), "the refused query's row keeps the columns: " + rows.get(4));
    assertEquals("refused: root > set", rows.get(4).get(6));
    assertEquals(List.of("total", "", "110.0", "110.0", "3.75", "330.0", ""), rows.get(5));
    rows.forEach(row -> assertEquals(7, row.size(), row.toString()));
    assertTrue(report.markdown("chart.png").contains("plan = the median time the timed runs spent planning"));

    List<String> csv = report.csv().lines().toList();
    assertEquals("query,rows,best_ms,median_ms,first_ms,verified,compared_best_ms,compared_median_ms,compared_first_ms,"
        + "ratio,ratio_low,ratio_high,plan_ms,failure", csv.get(0));
    assertEquals("1,4,90.000,90.000,270.000,yes,,,,,,,2.500,", csv.get(1));
    assertEquals("16,,,,,refused,,,,,,,,\"refused: root > set\"", csv.get(3));
    csv.forEach(line -> assertEquals(13, line.replaceAll("\"[^\"]*\"", "").chars().filter(c -> c == ',').count(), line));
  }

  /** Where no chart could be drawn, the Markdown names none (no broken image link). */
  @Test
  void withoutAChartTheTableLinksNone() {
    TpchReport report = report(null, ran(1, 90_000_000, List.of(2_500_000L)));
    assertTrue(report.markdown("chart.png").contains("![median times](chart.png)"));
    assertFalse(report.markdown(null).contains("!["), report.markdown(null));
    assertEquals(rows(report.markdown("chart.png")), rows(report.markdown(null)));
  }

  @Test
  void planningBesideAComparedEngineIsTheTimedEnginesColumn() {
    List<List<String>> rows = rows(report("DuckDB v1.4.1", compared(3, 50_000_000, List.of(4_000_000L)))
        .markdown("chart.png"));
    assertEquals(List.of("query", "rows", "memwall (plans from SQL) best ms", "memwall (plans from SQL) median ms",
        "memwall (plans from SQL) plan ms", "memwall (plans from SQL) first ms", "verified", "DuckDB v1.4.1 best ms",
        "DuckDB v1.4.1 median ms", "DuckDB v1.4.1 first ms", "ratio", "ratio range"), rows.get(0));
    assertEquals("4.00", rows.get(2).get(4));
    assertEquals("0.50", rows.get(2).get(10));
    rows.forEach(row -> assertEquals(12, row.size(), row.toString()));
  }

  @Test
  void anEngineThatDoesNotTellPlanningApartHasNoPlanningColumn() {
    TpchReport report = report(null, ran(1, 90_000_000, List.of()), QueryReport.failed(2, "budget"));
    String markdown = report.markdown("chart.png");
    assertFalse(markdown.contains("plan"), markdown);
    assertEquals(List.of("query", "rows", "best ms", "median ms", "first ms", "verified"), rows(markdown).get(0));
    rows(markdown).forEach(row -> assertEquals(6, row.size(), row.toString()));
    assertEquals("1,4,90.000,90.000,270.000,yes,,,,,,,,", report.csv().lines().toList().get(1));
  }
}
