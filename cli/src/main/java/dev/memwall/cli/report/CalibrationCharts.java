package dev.memwall.cli.report;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.machine.ScanCostModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a {@link MachineProfile} as PNG charts (XChart): the latency curve with the cache levels,
 * the TLB sweep, and the scan of seed 000 beside its three cost models (the seed's Fig. 5).
 *
 * <p>Stateless; the caller owns the output directory, which is created if missing.
 */
public final class CalibrationCharts {
  public static final String LATENCY = "latency.png";
  public static final String TLB = "tlb.png";
  public static final String SCAN = "scan-stride.png";

  private CalibrationCharts() {}

  /**
   * Writes the charts into {@code dir}; a chart this Java cannot draw is left out and {@code warn}
   * told why (see {@link ChartFiles}).
   *
   * @return the files written
   * @throws IOException if {@code dir} cannot be created or written
   */
  public static List<Path> write(MachineProfile profile, Path dir, Consumer<String> warn) throws IOException {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new IOException("cannot draw the charts into " + dir + ": " + e, e);
    }
    List<Path> written = new ArrayList<>();
    ChartFiles.savePng(() -> latency(profile), dir.resolve(LATENCY), warn).ifPresent(written::add);
    ChartFiles.savePng(() -> tlb(profile), dir.resolve(TLB), warn).ifPresent(written::add);
    if (!profile.strideScan().isEmpty()) {
      ChartFiles.savePng(() -> scan(profile), dir.resolve(SCAN), warn).ifPresent(written::add);
    }
    return written;
  }

  private static XYChart latency(MachineProfile profile) {
    XYChart chart = chart("Latency of a dependent access versus working set (" + profile.cpu() + ")",
        "working set (KiB)", "ns per access");
    chart.getStyler().setXAxisLogarithmic(true).setYAxisLogarithmic(true);
    List<MachineProfile.LatencyPoint> curve = profile.curve();
    double[] x = curve.stream().mapToDouble(p -> p.workingSetBytes() / 1024.0).toArray();
    line(chart, "measured", x, curve.stream().mapToDouble(MachineProfile.LatencyPoint::nanosPerAccess).toArray(), true);
    double smallest = x[0];
    for (MachineProfile.MeasuredCache cache : profile.caches()) {
      double kib = cache.cache().sizeBytes() / 1024.0;
      line(chart, "L" + cache.cache().level() + " hit, up to its sysfs size", new double[] {smallest, kib},
          new double[] {cache.hitLatencyNanos(), cache.hitLatencyNanos()}, false);
    }
    line(chart, "T1 (memory)", new double[] {smallest, x[x.length - 1]},
        new double[] {profile.missLatencyNanos(), profile.missLatencyNanos()}, false);
    return chart;
  }

  private static XYChart tlb(MachineProfile profile) {
    XYChart chart = chart("One line per page: the TLB's reach and miss cost", "pages touched", "ns per access");
    chart.getStyler().setXAxisLogarithmic(true);
    List<MachineProfile.TlbPoint> curve = profile.tlb().curve();
    double[] pages = curve.stream().mapToDouble(MachineProfile.TlbPoint::pages).toArray();
    line(chart, (profile.pageBytes() >> 10) + " KiB pages", pages,
        curve.stream().mapToDouble(MachineProfile.TlbPoint::pageNanos).toArray(), true);
    if (curve.stream().noneMatch(p -> Double.isNaN(p.hugePageNanos()))) {
      line(chart, "transparent huge pages", pages,
          curve.stream().mapToDouble(MachineProfile.TlbPoint::hugePageNanos).toArray(), true);
    }
    line(chart, "as many contiguous lines", pages,
        curve.stream().mapToDouble(MachineProfile.TlbPoint::contiguousNanos).toArray(), true);
    return chart;
  }

  private static XYChart scan(MachineProfile profile) {
    XYChart chart = chart("Scan of seed 000: one byte read every s bytes, with the seed's cost models",
        "stride s (bytes)", "ns per iteration");
    chart.getStyler().setXAxisLogarithmic(true).setYAxisLogarithmic(true);
    List<MachineProfile.StridePoint> points = profile.strideScan();
    double[] strides = points.stream().mapToDouble(MachineProfile.StridePoint::strideBytes).toArray();
    line(chart, "measured", strides, points.stream().mapToDouble(MachineProfile.StridePoint::nanosPerIteration).toArray(),
        true);
    line(chart, "T_CPU (in L1)", strides,
        points.stream().mapToDouble(MachineProfile.StridePoint::cpuNanosPerIteration).toArray(), true);
    ScanCostModels models = ScanCostModels.fit(profile);
    for (ScanCostModels.Fit fit : models.fits()) {
      double[] predicted = points.stream().mapToDouble(p -> models.predict(fit.model(), p.strideBytes())).toArray();
      String label = String.format(java.util.Locale.ROOT, "%s (q=%.1f, l_min=%.2f ns; off x%.2f)", fit.model().label(),
          fit.concurrency(), fit.lineTransferNanos(), fit.errorFactor());
      line(chart, label, strides, predicted, false);
    }
    return chart;
  }

  private static XYChart chart(String title, String xTitle, String yTitle) {
    XYChart chart = new XYChartBuilder().width(ChartFiles.WIDTH).height(ChartFiles.HEIGHT).title(title).xAxisTitle(xTitle)
        .yAxisTitle(yTitle).build();
    chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
    return chart;
  }

  private static void line(XYChart chart, String name, double[] x, double[] y, boolean markers) {
    XYSeries series = chart.addSeries(name, x, y);
    if (!markers) {
      series.setMarker(SeriesMarkers.NONE);
    }
  }
}
