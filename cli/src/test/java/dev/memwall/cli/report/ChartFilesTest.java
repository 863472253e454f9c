package dev.memwall.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

class ChartFilesTest {
  @TempDir Path dir;

  @Test
  void drawsAPng() throws IOException {
    List<String> warnings = new ArrayList<>();
    Path file = dir.resolve("chart.png");
    Optional<Path> written = ChartFiles.savePng(ChartFilesTest::chart, file, warnings::add);
    assertEquals(Optional.of(file), written);
    byte[] bytes = Files.readAllBytes(file);
    assertTrue(bytes.length > 8 && bytes[1] == 'P' && bytes[2] == 'N' && bytes[3] == 'G', "a PNG signature");
    assertEquals(List.of(), warnings);
  }

  /** As on a server image without fonts, where AWT fails inside the drawing: a warning, no file, no failure. */
  @Test
  void aJavaThatCannotDrawLeavesNoFileAndSaysWhy() throws IOException {
    List<String> warnings = new ArrayList<>();
    Path file = dir.resolve("chart.png");
    Files.writeString(file, "an older chart");
    Optional<Path> written = ChartFiles.savePng(() -> {
      throw new RuntimeException("Fontconfig head is null, check your fonts or fonts configuration");
    }, file, warnings::add);
    assertEquals(Optional.empty(), written);
    assertFalse(Files.exists(file), "no stale or partial chart is left");
    assertEquals(1, warnings.size());
    assertTrue(warnings.getFirst().contains(file.toString()) && warnings.getFirst().contains("Fontconfig"),
        warnings.getFirst());
  }

  @Test
  void aMissingNativeLibraryIsAWarningToo() throws IOException {
    List<String> warnings = new ArrayList<>();
    Optional<Path> written = ChartFiles.savePng(() -> {
      throw new UnsatisfiedLinkError("libfontmanager.so: cannot open shared object file");
    }, dir.resolve("chart.png"), warnings::add);
    assertEquals(Optional.empty(), written);
    assertTrue(warnings.getFirst().contains("libfontmanager"), warnings.getFirst());
  }

  private static CategoryChart chart() {
    CategoryChart chart = new CategoryChartBuilder().width(ChartFiles.WIDTH).height(ChartFiles.HEIGHT).title("t").build();
    chart.addSeries("s", List.of("a", "b"), List.of(1.0, 2.0));
    return chart;
  }
}
