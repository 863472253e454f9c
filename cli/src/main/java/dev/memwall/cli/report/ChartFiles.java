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
 * What every memwall chart shares: its size and how it is drawn and written. Stateless.
 *
 * <p>A chart is a courtesy beside the tables it draws: a machine whose Java cannot render text (a
 * server image without fonts or fontconfig, a runtime linked without {@code java.desktop}) still gets
 * the tables and a warning, not a failed run. Drawing happens in memory, apart from writing, so that a
 * caller knows whether there is a chart before it writes what links to it.
 */
final class ChartFiles {
  static final int WIDTH = 900;
  static final int HEIGHT = 560;

  private ChartFiles() {}

  /**
   * The PNG of the chart {@code chart} builds, or empty when this Java cannot draw it.
   *
   * @param name what the warning calls the chart (its file, say)
   * @param warn told, in one line naming it, why the chart was not drawn
   */
  static Optional<byte[]> drawPng(Supplier<? extends Chart<?, ?>> chart, String name, Consumer<String> warn) {
    try {
      return Optional.of(BitmapEncoder.getBitmapBytes(chart.get(), BitmapEncoder.BitmapFormat.PNG));
    } catch (IOException | RuntimeException | AWTError | LinkageError | InternalError e) {
      // AWT reports a missing font subsystem as any of these, e.g. "Fontconfig head is null"
      warn.accept("chart " + name + " not drawn: this Java cannot render it (" + e + ")");
      return Optional.empty();
    }
  }

  /**
   * Draws the chart into {@code file} (which should end in {@code .png}); where this Java cannot draw
   * it, leaves nothing at {@code file} (an older chart there is removed) and warns.
   *
   * @return the file, or empty when the chart was not drawn
   * @throws IOException if the file cannot be written or removed
   */
  static Optional<Path> savePng(Supplier<? extends Chart<?, ?>> chart, Path file, Consumer<String> warn)
      throws IOException {
    return writePng(drawPng(chart, file.toString(), warn), file);
  }

  /**
   * Writes a chart {@link #drawPng} drew into {@code file}; where it drew none, removes an older chart
   * there, so that none stands beside tables it does not show.
   *
   * @return the file, or empty when there was no chart
   * @throws IOException if the file cannot be written or removed
   */
  static Optional<Path> writePng(Optional<byte[]> png, Path file) throws IOException {
    if (png.isEmpty()) {
      Files.deleteIfExists(file);
      return Optional.empty();
    }
    return Optional.of(Files.write(file, png.get()));
  }
}
