package dev.memwall.bench.report;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a {@link ReportGroup}'s charts as PNG images ({@link #WIDTH} x {@link #HEIGHT} pixels)
 * through XChart in headless AWT:
 *
 * <ul>
 *   <li><b>scores</b>: the score against the x parameter, one line per series (with error bars on
 *       a linear axis), or one bar per series when the group has no x parameter;
 *   <li><b>speedup</b> (with a baseline): each series' speedup over its baseline, same layout, with
 *       the baseline as the dashed line at 1;
 *   <li><b>per element</b> (when the x parameter is an input size and scores are time per
 *       operation): nanoseconds per element against the size, the form of the seeds' figures.
 * </ul>
 *
 * <p>Thread safety: stateless; each call builds its own chart.
 */
public final class JmhCharts {
  /** Width of every chart in pixels. */
  public static final int WIDTH = 900;
  /** Height of every chart in pixels. */
  public static final int HEIGHT = 540;

  /** One rendered chart. */
  public record Image(String kind, String title, byte[] png) {}

  private JmhCharts() {}

  /** The group's charts, in the order scores, speedup (if any), per element (if any). */
  public static List<Image> draw(ReportGroup group) throws IOException {
    List<Image> images = new ArrayList<>();
    String unit = group.unit().label();
    String direction = group.unit().kind() == ScoreUnit.Kind.TIME_PER_OP ? " (lower is better)"
        : group.unit().higherIsBetter() ? " (higher is better)" : "";
    String title = group.simpleClassName() + " (" + group.mode() + ")";
    images.add(render("scores", group, title + ": score", unit + direction, ReportGroup.Row::score,
        group.logScores(), true, false));
    if (group.hasSpeedups()) {
      String baseline = group.baseline().orElseThrow().text();
      double[] speedups = group.rows().stream().filter(r -> !Double.isNaN(r.speedup()))
          .mapToDouble(ReportGroup.Row::speedup).toArray();
      images.add(render("speedup", group, title + ": speedup vs " + baseline,
          "speedup (higher is better; 1 = baseline)", ReportGroup.Row::speedup,
          ReportGroup.spansDecades(speedups), false, true));
    }
    if (group.perElement()) {
      String x = group.xParam().orElseThrow();
      double[] perElement = group.rows().stream().mapToDouble(group::nanosPerElement).toArray();
      images.add(render("per-element", group, title + ": time per element of " + x,
          "ns per " + x + " (lower is better)", group::nanosPerElement, ReportGroup.spansDecades(perElement),
          false, false));
    }
    return images;
  }

  private static Image render(String kind, ReportGroup group, String title, String yTitle,
      ToDoubleFunction<ReportGroup.Row> y, boolean logY, boolean errorBars, boolean speedup) throws IOException {
    Chart<?, ?> chart = group.xParam().isPresent()
        ? lines(group, title, yTitle, y, logY, errorBars && !logY, speedup)
        : bars(group, title, yTitle, y, logY, errorBars && !logY, speedup);
    return new Image(kind, title, BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG));
  }

  private static XYChart lines(ReportGroup group, String title, String yTitle, ToDoubleFunction<ReportGroup.Row> y,
      boolean logY, boolean errorBars, boolean speedup) {
    String x = group.xParam().orElseThrow();
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle(x + (group.logX() ? " (log scale)" : "")).yAxisTitle(yTitle + (logY ? ", log scale" : "")).build();
    style(chart.getStyler());
    chart.getStyler().setXAxisLogarithmic(group.logX());
    chart.getStyler().setYAxisLogarithmic(logY);
    chart.getStyler().setXAxisLogarithmicDecadeOnly(true);
    chart.getStyler().setYAxisLogarithmicDecadeOnly(true);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    chart.getStyler().setXAxisTickLabelsFormattingFunction(JmhCharts::tick);
    chart.getStyler().setMarkerSize(7);
    double minX = Double.POSITIVE_INFINITY;
    double maxX = Double.NEGATIVE_INFINITY;
    for (ReportGroup.Series series : group.series()) {
      List<ReportGroup.Row> rows = series.rows().stream().filter(r -> Double.isFinite(y.applyAsDouble(r))).toList();
      if (rows.isEmpty() || (speedup && series.baseline())) {
        continue;
      }
      double[] xs = rows.stream().mapToDouble(ReportGroup.Row::x).toArray();
      double[] ys = rows.stream().mapToDouble(y).toArray();
      XYSeries line;
      if (errorBars && rows.stream().allMatch(r -> Double.isFinite(r.error()))) {
        line = chart.addSeries(series.label(), xs, ys, rows.stream().mapToDouble(ReportGroup.Row::error).toArray());
      } else {
        line = chart.addSeries(series.label(), xs, ys);
      }
      line.setMarker(SeriesMarkers.CIRCLE);
      if (series.baseline()) {
        line.setLineStyle(SeriesLines.DASH_DASH);
      }
      for (double v : xs) {
        minX = Math.min(minX, v);
        maxX = Math.max(maxX, v);
      }
    }
    if (speedup && minX <= maxX) {
      XYSeries one = chart.addSeries("baseline " + group.baseline().orElseThrow().text() + " = 1",
          new double[] {minX, maxX}, new double[] {1, 1});
      one.setMarker(SeriesMarkers.NONE);
      one.setLineStyle(SeriesLines.DASH_DASH);
      one.setLineColor(java.awt.Color.DARK_GRAY);
    }
    return chart;
  }

  private static CategoryChart bars(ReportGroup group, String title, String yTitle,
      ToDoubleFunction<ReportGroup.Row> y, boolean logY, boolean errorBars, boolean speedup) {
    CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle("").yAxisTitle(yTitle + (logY ? ", log scale" : "")).build();
    style(chart.getStyler());
    chart.getStyler().setYAxisLogarithmic(logY);
    chart.getStyler().setYAxisLogarithmicDecadeOnly(true);
    chart.getStyler().setLegendVisible(false);
    chart.getStyler().setXAxisLabelRotation(group.series().size() > 4 ? 30 : 0);
    chart.getStyler().setLabelsVisible(true);
    chart.getStyler().setLabelsFontColorAutomaticEnabled(false);
    chart.getStyler().setLabelsFontColor(java.awt.Color.BLACK);
    chart.getStyler().setLabelsPosition(1.0);
    List<String> categories = new ArrayList<>();
    List<Double> values = new ArrayList<>();
    List<Double> errors = new ArrayList<>();
    for (ReportGroup.Row row : group.rows()) {
      double v = y.applyAsDouble(row);
      if (!Double.isFinite(v) || (speedup && row.isBaseline())) {
        continue;
      }
      categories.add(row.series() + (speedup ? " vs " + group.seriesOf(row.baseline()) : ""));
      values.add(v);
      errors.add(Double.isFinite(row.error()) ? row.error() : 0.0);
    }
    if (errorBars) {
      chart.addSeries(speedup ? "speedup" : "score", categories, values, errors);
    } else {
      chart.addSeries(speedup ? "speedup" : "score", categories, values);
    }
    return chart;
  }

  private static void style(AxesChartStyler styler) {
    styler.setAntiAlias(true);
    styler.setChartBackgroundColor(java.awt.Color.WHITE);
    styler.setPlotBackgroundColor(java.awt.Color.WHITE);
    styler.setPlotGridLinesColor(new java.awt.Color(220, 220, 220));
    styler.setLegendBorderColor(java.awt.Color.WHITE);
    styler.setErrorBarsColorSeriesColor(true);
    styler.setYAxisTickLabelsFormattingFunction(JmhCharts::tick);
  }

  /** A compact tick label: 1, 2.5, 1000, 1M, 0.05. */
  static String tick(Double value) {
    double v = value;
    double a = Math.abs(v);
    if (a >= 1e9 && v == Math.rint(v)) {
      return trim(v / 1e9) + "G";
    }
    if (a >= 1e6 && v == Math.rint(v)) {
      return trim(v / 1e6) + "M";
    }
    if (a >= 1e4 && v == Math.rint(v)) {
      return trim(v / 1e3) + "k";
    }
    return trim(v);
  }

  private static String trim(double v) {
    String s = a(v) >= 100 ? String.format(Locale.ROOT, "%.0f", v)
        : a(v) >= 1 ? String.format(Locale.ROOT, "%.2f", v) : String.format(Locale.ROOT, "%.3g", v);
    if (s.contains(".") && !s.contains("e")) {
      s = s.replaceAll("0+$", "").replaceAll("\\.$", "");
    }
    return s;
  }

  private static double a(double v) {
    return Math.abs(v);
  }
}
