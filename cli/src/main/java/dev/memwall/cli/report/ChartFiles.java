package dev.memwall.cli.report;

import java.io.IOException;
import java.nio.file.Path;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.internal.chartpart.Chart;

/** What every memwall chart shares: its size and how it is written. Stateless. */
final class ChartFiles {
  static final int WIDTH = 900;
  static final int HEIGHT = 560;

  private ChartFiles() {}

  /** Writes {@code chart} to {@code file} (which should end in {@code .png}) as a PNG. */
  static Path savePng(Chart<?, ?> chart, Path file) throws IOException {
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }
}
