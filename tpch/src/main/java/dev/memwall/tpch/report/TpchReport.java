package dev.memwall.tpch.report;

import dev.memwall.tpch.run.TpchRunner.QueryReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * A TPC-H run written for readers: the per-query table as Markdown and CSV, and a bar chart of
 * the median times (memwall beside DuckDB when it was compared), named after the scale factor and
 * thread count, e.g. {@code tpch-sf1-2t.md}.
 *
 * <p>A query that could not run ({@link QueryReport#failed}) has its row with the reason instead of
 * times (Markdown: in the verified column; CSV: {@code verified} is {@code failed} and the last
 * column, {@code failure}, the reason) and no bar in the chart.
 *
 * <p>Stateless; files in the directory with the same names are replaced. Bad input: a directory
 * that cannot be created or written gives {@link IOException}.
 *
 * @param title what was run, e.g. "TPC-H SF 1, 2 threads, verified against DuckDB"
 * @param scaleFactorName the scale factor as the data directory spells it, e.g. {@code 1} or {@code 0.1}
 * @param threads the threads memwall (and DuckDB) used
 * @param reports one per query, in the order run
 */
public record TpchReport(String title, String scaleFactorName, int threads, List<QueryReport> reports) {
  public TpchReport {
    reports = List.copyOf(reports);
  }

  /** Writes the Markdown table, the CSV and the chart into {@code dir}; returns the files. */
  public List<Path> write(Path dir) throws IOException {
    Files.createDirectories(dir);
    String base = "tpch-sf" + scaleFactorName + "-" + threads + "t";
    List<Path> files = new ArrayList<>();
    files.add(Files.writeString(dir.resolve(base + ".md"), markdown(base + ".png"), StandardCharsets.UTF_8));
    files.add(Files.writeString(dir.resolve(base + ".csv"), csv(), StandardCharsets.UTF_8));
    files.add(Charts.savePng(chart(), dir.resolve(base + ".png")));
    return files;
  }

  private boolean compared() {
    return reports.stream().anyMatch(r -> r.duckMedianNanos() > 0);
  }

  String markdown(String chartFile) {
    StringBuilder md = new StringBuilder("# " + title + "\n\n");
    md.append(compared()
        ? "| query | rows | memwall best ms | memwall median ms | memwall first ms | verified | DuckDB best ms"
            + " | DuckDB median ms | ratio |\n|---|---:|---:|---:|---:|---|---:|---:|---:|\n"
        : "| query | rows | best ms | median ms | first ms | verified |\n|---|---:|---:|---:|---:|---|\n");
    for (QueryReport r : reports) {
      if (r.failed()) {
        md.append("| Q").append(r.query()).append(" | | | | | FAILED: ").append(r.failure().replace("|", "\\|").replace('\n', ' '))
            .append(" |").append(compared() ? " | | |" : "").append('\n');
        continue;
      }
      md.append(String.format(Locale.ROOT, "| Q%d | %d | %.1f | %.1f | %.1f | %s |", r.query(), r.rows(),
          ms(r.bestNanos()), ms(r.medianNanos()), ms(r.firstNanos()), verified(r)));
      if (compared()) {
        md.append(String.format(Locale.ROOT, " %.1f | %.1f | %.2f |", ms(r.duckBestNanos()), ms(r.duckMedianNanos()),
            r.ratioToDuckDb()));
      }
      md.append('\n');
    }
    md.append(String.format(Locale.ROOT, "| total | | %.1f | %.1f | %.1f | |", ms(total(QueryReport::bestNanos)),
        ms(total(QueryReport::medianNanos)), ms(total(QueryReport::firstNanos))));
    if (compared()) {
      md.append(String.format(Locale.ROOT, " %.1f | %.1f | %.2f |", ms(total(QueryReport::duckBestNanos)),
          ms(total(QueryReport::duckMedianNanos)),
          (double) total(QueryReport::medianNanos) / total(QueryReport::duckMedianNanos)));
    }
    md.append("\n\n");
    if (compared()) {
      md.append("ratio = memwall median / DuckDB median (below 1: memwall faster)\n\n");
    }
    md.append("first = the query's first run in the process, JIT compilation included\n\n");
    return md.append("![median times](").append(chartFile).append(")\n").toString();
  }

  String csv() {
    StringBuilder csv = new StringBuilder(
        "query,rows,best_ms,median_ms,first_ms,verified,duckdb_best_ms,duckdb_median_ms,ratio_to_duckdb,failure\n");
    for (QueryReport r : reports) {
      if (r.failed()) {
        csv.append(r.query()).append(",,,,,failed,,,,\"").append(r.failure().replace("\"", "\"\"").replace('\n', ' ')).append("\"\n");
        continue;
      }
      csv.append(String.format(Locale.ROOT, "%d,%d,%.3f,%.3f,%.3f,%s,", r.query(), r.rows(), ms(r.bestNanos()),
          ms(r.medianNanos()), ms(r.firstNanos()), verified(r)));
      csv.append(r.duckMedianNanos() > 0 ? String.format(Locale.ROOT, "%.3f,%.3f,%.4f", ms(r.duckBestNanos()),
          ms(r.duckMedianNanos()), r.ratioToDuckDb()) : ",,");
      csv.append(",\n");
    }
    return csv.toString();
  }

  private CategoryChart chart() {
    CategoryChart chart = new CategoryChartBuilder().width(Charts.WIDTH).height(Charts.HEIGHT).title(title)
        .xAxisTitle("query").yAxisTitle("median ms").build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    List<String> queries = reports.stream().map(r -> "Q" + r.query()).toList();
    chart.addSeries("memwall", queries, reports.stream().map(r -> ms(r.medianNanos())).toList());
    if (compared()) {
      chart.addSeries("DuckDB", queries, reports.stream().map(r -> ms(r.duckMedianNanos())).toList());
    }
    return chart;
  }

  private long total(java.util.function.ToLongFunction<QueryReport> nanos) {
    return reports.stream().filter(r -> !r.failed()).mapToLong(nanos).sum();
  }

  private static String verified(QueryReport r) {
    return r.verified() == null ? "-" : r.verified() ? "yes" : "NO";
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }
}
