package dev.memwall.cli.report;

import java.awt.AWTError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * What every memwall chart shares: its size and how it is written. Stateless.
 *
 * <p>A chart is a courtesy beside the tables it draws: a machine whose Java cannot render text (a
 * server image without fonts or fontconfig, a runtime linked without {@code java.desktop}) still gets
 * the tables and a warning, not a failed run.
 */
final class ChartFiles {
  static final int WIDTH = 900;
  static final int HEIGHT = 560;

  private ChartFiles() {}

  /**
   * Draws the chart {@code chart} builds into {@code file} (which should end in {@code .png}) as a
   * PNG.
   *
   * @param warn told, in one line naming the file, why the chart was not drawn
   * @return the file, or empty when this Java cannot draw (then nothing is left at {@code file})
   * @throws IOException if the file cannot be written
   */
  static Optional<Path> savePng(Supplier<? extends Chart<?, ?>> chart, Path file, Consumer<String> warn)
      throws IOException {
    try {
      BitmapEncoder.saveBitmap(chart.get(), file.toString(), BitmapEncoder.BitmapFormat.PNG);
      return Optional.of(file);
    } catch (RuntimeException | AWTError | LinkageError | InternalError e) {
      // AWT reports a missing font subsystem as any of these, e.g. "Fontconfig head is null".
      Files.deleteIfExists(file);
      warn.accept("chart " + file + " not drawn: this Java cannot render it (" + e + ")");
      return Optional.empty();
    }
  }
}
