package dev.memwall.cli.report;

import dev.memwall.tpch.run.Rounds;
import dev.memwall.tpch.run.TpchRunner.QueryReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * A TPC-H run written for readers: the per-query table as Markdown and CSV, and a bar chart of
 * the median times (the engine beside the compared one, when one was), named after the engine, the
 * scale factor and thread count ({@link #baseName}), e.g. {@code tpch-sf1-2t.md} for memwall or
 * {@code tpch-spark-sf1-2t.md} for Spark.
 *
 * <p>A query that could not run ({@link QueryReport#failed}) has its row with the reason instead of
 * times (Markdown: in the verified column; CSV: {@code verified} is {@code failed} and the last
 * column, {@code failure}, the reason) and no bar in the chart.
 *
 * <p>Where the engine tells its planning apart (plans from SQL: {@link QueryReport#planningNanos}), the
 * Markdown has a {@code plan ms} column after the median, the median time spent planning, which the
 * median includes; the CSV's {@code plan_ms} column (before {@code failure}) is empty otherwise.
 *
 * <p>Stateless; files in the directory with the same names are replaced. Bad input: a directory
 * that cannot be created or written gives {@link IOException}.
 *
 * @param title what was run, e.g. "TPC-H SF 1, 2 threads, verified against DuckDB"
 * @param base the file name without extension, see {@link #baseName}
 * @param engine the timed engine's name, e.g. {@code memwall}
 * @param compared the compared engine's name, e.g. {@code DuckDB v1.4.1}; null when none was compared
 * @param reports one per query, in the order run
 * @param stamp when, at what commit and on what machine the run was measured
 */
public record TpchReport(String title, String base, String engine, String compared, List<QueryReport> reports,
    RunStamp stamp) {
  public TpchReport {
    reports = List.copyOf(reports);
  }

  /**
   * {@code tpch-sf<SF>-<threads>t}, with the engine's key after {@code tpch-} unless it is memwall's own.
   *
   * @param engineKey the engine as {@code --engine} names it
   * @param scaleFactorName the scale factor as the data directory spells it, e.g. {@code 1} or {@code 0.1}
   */
  public static String baseName(String engineKey, String scaleFactorName, int threads) {
    return "tpch-" + (engineKey.equals("memwall") ? "" : engineKey + "-") + "sf" + scaleFactorName + "-" + threads + "t";
  }

  /**
   * Writes the Markdown table, the CSV and the chart into {@code dir}; returns the files. A chart
   * this Java cannot draw is left out and {@code warn} told why (see {@link ChartFiles}).
   */
  public List<Path> write(Path dir, Consumer<String> warn) throws IOException {
    Files.createDirectories(dir);
    Path chartFile = dir.resolve(base + ".png");
    Optional<byte[]> chart = ChartFiles.drawPng(this::chart, chartFile.toString(), warn);
    List<Path> files = new ArrayList<>();
    files.add(Files.writeString(dir.resolve(base + ".md"), markdown(chart.isPresent() ? base + ".png" : null),
        StandardCharsets.UTF_8));
    files.add(Files.writeString(dir.resolve(base + ".csv"), csv(), StandardCharsets.UTF_8));
    ChartFiles.writePng(chart, chartFile).ifPresent(files::add);
    return files;
  }

  private boolean hasComparison() {
    return compared != null;
  }

  /** Whether the engine told its planning time apart for some query. */
  private boolean hasPlanning() {
    return reports.stream().anyMatch(r -> r.planningNanos() >= 0);
  }

  /** The {@code plan ms} cell (with the separator before the next one), or nothing when no query has one. */
  private String planCell(QueryReport r) {
    return !hasPlanning() ? "" : r.planningNanos() < 0 ? " |" : String.format(Locale.ROOT, " %.2f |", ms(r.planningNanos()));
  }

  /** The Markdown table, with the chart {@code chartFile} below it; without a chart where it is null. */
  String markdown(String chartFile) {
    StringBuilder md = new StringBuilder("# " + title + "\n\n" + stamp.line() + "\n\n");
    String plan = hasPlanning() ? (hasComparison() ? " " + engine + " plan ms |" : " plan ms |") : "";
    String planAlign = hasPlanning() ? "---:|" : "";
    md.append(hasComparison()
        ? "| query | rows | " + engine + " best ms | " + engine + " median ms |" + plan + " " + engine + " first ms | verified | "
            + compared + " best ms | " + compared + " median ms | " + compared + " first ms | ratio | ratio range |\n"
            + "|---|---:|---:|---:|" + planAlign + "---:|---|---:|---:|---:|---:|---:|\n"
        : "| query | rows | best ms | median ms |" + plan + " first ms | verified |\n|---|---:|---:|---:|" + planAlign
            + "---:|---|\n");
    for (QueryReport r : reports) {
      if (r.failed()) {
        md.append("| Q").append(r.query()).append(hasPlanning() ? " |" : "").append(r.refused() ? " | | | | | " : " | | | | | FAILED: ").append(r.failure().replace("|", "\\|").replace('\n', ' '))
            .append(" |").append(hasComparison() ? " | | | | |" : "").append('\n');
        continue;
      }
      md.append(String.format(Locale.ROOT, "| Q%d | %d | %.1f | %.1f |%s %.1f | %s |", r.query(), r.rows(),
          ms(r.bestNanos()), ms(r.medianNanos()), planCell(r), ms(r.firstNanos()), verified(r)));
      if (hasComparison()) {
        md.append(String.format(Locale.ROOT, " %.1f | %.1f | %.1f | %.2f | %s |", ms(r.comparedBestNanos()),
            ms(r.comparedMedianNanos()), ms(r.comparedFirstNanos()), r.ratio(), Rounds.range(r.roundRatios())));
      }
      md.append('\n');
    }
    md.append(String.format(Locale.ROOT, "| total | | %.1f | %.1f |%s %.1f | |", ms(total(QueryReport::bestNanos)),
        ms(total(QueryReport::medianNanos)), hasPlanning() ? String.format(Locale.ROOT, " %.2f |",
            ms(total(r -> Math.max(0, r.planningNanos())))) : "", ms(total(QueryReport::firstNanos))));
    List<Double> totals = Rounds.totalRatios(reports);
    if (hasComparison()) {
      md.append(String.format(Locale.ROOT, " %.1f | %.1f | %.1f | %.2f | %s |", ms(total(QueryReport::comparedBestNanos)),
          ms(total(QueryReport::comparedMedianNanos)), ms(total(QueryReport::comparedFirstNanos)),
          Rounds.median(totals), Rounds.range(totals)));
    }
    md.append("\n\n");
    if (hasComparison()) {
      md.append("ratio = " + engine + " median / " + compared + " median (below 1: " + engine + " faster): per query "
          + "the median of the rounds' ratios, in the total row the median of the rounds' total ratios; ratio range = "
          + "the least and greatest over " + totals.size() + " round" + (totals.size() == 1 ? "" : "s")
          + (totals.size() > 1 ? " (total ratio by round: " + Rounds.list(totals) + ")" : "") + "\n\n");
    }
    md.append("first = the query's first run in the process, JIT compilation included\n\n");
    if (hasPlanning()) {
      md.append("plan = the median time the timed runs spent planning (SQL text to memwall's plan), included in the "
          + "median\n\n");
    }
    return chartFile == null ? md.toString() : md.append("![median times](").append(chartFile).append(")\n").toString();
  }

  String csv() {
    StringBuilder csv = new StringBuilder(
        "query,rows,best_ms,median_ms,first_ms,verified,compared_best_ms,compared_median_ms,compared_first_ms,ratio,"
            + "ratio_low,ratio_high,plan_ms,failure\n");
    for (QueryReport r : reports) {
      if (r.failed()) {
        csv.append(r.query()).append(r.refused() ? ",,,,,refused,,,,,,,,\"" : ",,,,,failed,,,,,,,,\"").append(r.failure().replace("\"", "\"\"").replace('\n', ' ')).append("\"\n");
        continue;
      }
      csv.append(String.format(Locale.ROOT, "%d,%d,%.3f,%.3f,%.3f,%s,", r.query(), r.rows(), ms(r.bestNanos()),
          ms(r.medianNanos()), ms(r.firstNanos()), verified(r)));
      List<Double> ratios = r.roundRatios();
      csv.append(r.comparedMedianNanos() > 0 ? String.format(Locale.ROOT, "%.3f,%.3f,%.3f,%.4f,%.4f,%.4f",
          ms(r.comparedBestNanos()), ms(r.comparedMedianNanos()), ms(r.comparedFirstNanos()), r.ratio(),
          Collections.min(ratios), Collections.max(ratios)) : ",,,,,");
      csv.append(r.planningNanos() >= 0 ? String.format(Locale.ROOT, ",%.3f", ms(r.planningNanos())) : ",");
      csv.append(",\n");
    }
    return csv.toString();
  }

  private CategoryChart chart() {
    CategoryChart chart = new CategoryChartBuilder().width(ChartFiles.WIDTH).height(ChartFiles.HEIGHT).title(title)
        .xAxisTitle("query").yAxisTitle("median ms").build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    List<String> queries = reports.stream().map(r -> "Q" + r.query()).toList();
    chart.addSeries(engine, queries, reports.stream().map(r -> ms(r.medianNanos())).toList());
    if (hasComparison()) {
      chart.addSeries(compared, queries, reports.stream().map(r -> ms(r.comparedMedianNanos())).toList());
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
