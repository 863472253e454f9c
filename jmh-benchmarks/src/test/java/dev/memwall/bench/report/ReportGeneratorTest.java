package dev.memwall.bench.report;

import static dev.memwall.bench.report.ReportFixtures.row;
import static dev.memwall.bench.report.ReportFixtures.sample;
import static dev.memwall.bench.report.ReportFixtures.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportGeneratorTest {
  private static Set<String> files(Path dir) throws IOException {
    try (Stream<Path> list = Files.list(dir)) {
      return list.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
    }
  }

  private static void assertPng(Path file) throws IOException {
    BufferedImage image = ImageIO.read(file.toFile());
    assertNotNull(image, file + " is not a decodable image");
    assertEquals(JmhCharts.WIDTH, image.getWidth(), file.toString());
    assertEquals(JmhCharts.HEIGHT, image.getHeight(), file.toString());
    // not a blank canvas: a chart has many colours (lines, text, anti-aliasing)
    Set<Integer> colours = new java.util.HashSet<>();
    for (int y = 0; y < image.getHeight(); y += 3) {
      for (int x = 0; x < image.getWidth(); x += 3) {
        colours.add(image.getRGB(x, y));
      }
    }
    assertTrue(colours.size() > 10, file + " has only " + colours.size() + " colours");
  }

  @Test
  void theStoredResultsGiveTablesWithRatiosAndCharts(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("bench-report");
    var output = ReportGenerator.generate(List.of(sample("scan-bandwidth.json"), sample("tpch-q1-q6.json")), out,
        ReportSettings.conventions());

    assertEquals(Set.of("README.md",
        "scan-bandwidth-ScanBandwidthBenchmark-avgt-scores.png", "scan-bandwidth-ScanBandwidthBenchmark-avgt-speedup.png",
        "tpch-q1-q6-TpchQueryBenchmark-avgt-scores.png", "tpch-q1-q6-TpchQueryBenchmark-avgt-speedup.png"), files(out));
    assertEquals(out.resolve("README.md"), output.markdown());
    assertEquals(4, output.charts().size());
    for (Path chart : output.charts()) {
      assertPng(chart);
    }

    String md = Files.readString(output.markdown());
    for (Path chart : output.charts()) {
      assertTrue(md.contains("](" + chart.getFileName() + ")"), "the Markdown links " + chart.getFileName());
    }
    // ScanBandwidth: each path against the same kernel on a heap array (@ReportLayout(baseline = "*HeapArray")).
    // Values from the JSON: sumHeapArray 45.564 ± 9.061, sumSegment 50.095 ± 8.741, ... ms/op.
    assertTrue(md.contains("Baseline: `*HeapArray` (from the class's @ReportLayout)"), md);
    assertTrue(md.contains("Fixed parameters: `rows` = 134217728."), md);
    var scan = table(md, "scan-bandwidth.json", "ScanBandwidthBenchmark");
    assertEquals(6, scan.size());
    assertEquals(Map.of("benchmark", "sumSegment", "score", "50.1", "± error", "8.7", "unit", "ms/op",
        "speedup vs baseline", "0.91", "baseline", "sumHeapArray"), row(scan, Map.of("benchmark", "sumSegment")));
    assertEquals(Map.of("benchmark", "sumHeapArray", "score", "45.6", "± error", "9.1", "unit", "ms/op",
        "speedup vs baseline", "1.00", "baseline", "(itself)"), row(scan, Map.of("benchmark", "sumHeapArray")));
    assertEquals("0.12", row(scan, Map.of("benchmark", "sumArrowGet")).get("speedup vs baseline")); // 45.56/370.46
    assertEquals("370.5", row(scan, Map.of("benchmark", "sumArrowGet")).get("score"));
    assertEquals("190.2", row(scan, Map.of("benchmark", "sumArrowGet")).get("± error"));
    assertEquals("1.02", row(scan, Map.of("benchmark", "filteredSumSegment")).get("speedup vs baseline")); // 54.19/52.92
    assertEquals("filteredSumHeapArray", row(scan, Map.of("benchmark", "filteredSumSegment")).get("baseline"));
    assertEquals("0.09", row(scan, Map.of("benchmark", "filteredSumArrowGet")).get("speedup vs baseline")); // 54.19/626.18
    assertEquals("626.2", row(scan, Map.of("benchmark", "filteredSumArrowGet")).get("score"));

    // TPC-H: memwall against DuckDB at the same query and thread count (@ReportLayout(baseline = "duckdb")).
    var tpch = table(md, "tpch-q1-q6.json", "TpchQueryBenchmark");
    assertEquals(8, tpch.size());
    assertEquals(Map.of("benchmark", "memwall", "query", "1", "threads", "1", "score", "144.7", "± error", "57.4",
        "unit", "ms/op", "speedup vs baseline", "1.66", "baseline", "duckdb query=1"),
        row(tpch, Map.of("benchmark", "memwall", "query", "1", "threads", "1"))); // 240.20 / 144.70
    assertEquals("1.42", row(tpch, Map.of("benchmark", "memwall", "query", "1", "threads", "2")).get("speedup vs baseline"));
    assertEquals("0.91", row(tpch, Map.of("benchmark", "memwall", "query", "6", "threads", "1")).get("speedup vs baseline"));
    assertEquals("1.04", row(tpch, Map.of("benchmark", "memwall", "query", "6", "threads", "2")).get("speedup vs baseline"));
    assertEquals("20.7", row(tpch, Map.of("benchmark", "memwall", "query", "6", "threads", "2")).get("score"));
    assertEquals("4.5", row(tpch, Map.of("benchmark", "memwall", "query", "6", "threads", "2")).get("± error"));
    assertTrue(md.contains("Fixed parameters: `scaleFactor` = 1."), md);
  }

  @Test
  void aParameterSweepGetsLinesOnLogAxesSpeedupsAndTimePerElement(@TempDir Path dir) throws Exception {
    var output = ReportGenerator.generate(List.of(sample("join-sweep.json")), dir,
        new ReportSettings(List.of("algorithm=nestedLoops"), List.of(), null));
    assertEquals(Set.of("README.md", "join-sweep-JoinSweepBenchmark-avgt-scores.png",
        "join-sweep-JoinSweepBenchmark-avgt-speedup.png", "join-sweep-JoinSweepBenchmark-avgt-per-element.png"),
        files(dir));
    for (Path chart : output.charts()) {
      assertPng(chart);
    }
    String md = Files.readString(output.markdown());
    var join = table(md, "join-sweep.json", "JoinSweepBenchmark");
    assertEquals(8, join.size());
    // One unit for the group: the smallest score (hash at 1000 tuples, 40 us/op) stays >= 1 in us.
    // nestedLoops at 1000 tuples: 0.8 ms/op = 800 us/op = 800 ns per tuple; hash there 40 us/op: 800/40 = 20x.
    assertEquals(Map.of("benchmark", "join", "algorithm", "hash", "tuples", "1000", "score", "40.0", "± error", "2.0",
        "unit", "us/op", "ns per tuples", "40.0", "speedup vs baseline", "20.00", "baseline", "algorithm=nestedLoops"),
        row(join, Map.of("algorithm", "hash", "tuples", "1000")));
    assertEquals("800.0", row(join, Map.of("algorithm", "nestedLoops", "tuples", "1000")).get("score"));
    assertEquals("800.0", row(join, Map.of("algorithm", "nestedLoops", "tuples", "1000")).get("ns per tuples"));
    assertEquals("16.00", row(join, Map.of("algorithm", "radix", "tuples", "1000")).get("speedup vs baseline"));
    // 8000 ms = 8,000,000 us against 6 ms and 4 ms
    assertEquals("8000000.0", row(join, Map.of("algorithm", "nestedLoops", "tuples", "100000")).get("score"));
    assertEquals("1333.33", row(join, Map.of("algorithm", "hash", "tuples", "100000")).get("speedup vs baseline"));
    assertEquals("2000.00", row(join, Map.of("algorithm", "radix", "tuples", "100000")).get("speedup vs baseline"));
    // no nested loops at 10M tuples: no baseline, no ratio; JMH's NaN error shows as missing
    var hash10m = row(join, Map.of("algorithm", "hash", "tuples", "10000000"));
    assertEquals("900000.0", hash10m.get("score"));
    assertEquals(MarkdownReport.MISSING, hash10m.get("± error"));
    assertEquals(MarkdownReport.MISSING, hash10m.get("speedup vs baseline"));
    assertEquals(MarkdownReport.MISSING, hash10m.get("baseline"));
    assertEquals("90.0", hash10m.get("ns per tuples")); // 0.9 s / 10M tuples
    assertTrue(md.contains("Fixed parameters: `threads` = 1."), md);
    assertTrue(md.contains("Baseline: `algorithm=nestedLoops` (from --baseline)."), md);
  }

  @Test
  void throughputIsComparedWithAMethodNamedBaselineInOneUnit(@TempDir Path dir) throws Exception {
    var output = ReportGenerator.generate(List.of(sample("probe-thrpt.json")), dir, ReportSettings.conventions());
    String md = Files.readString(output.markdown());
    assertTrue(md.contains("### ProbeBenchmark (throughput)"), md);
    assertTrue(md.contains("Baseline: `baseline` (by convention)."), md);
    var probe = table(md, "probe-thrpt.json", "ProbeBenchmark");
    // 2,000,000 ops/s and 5000 ops/ms: in ops/us 2.00 and 5.00; higher is better, so 5/2 = 2.5x
    assertEquals(Map.of("benchmark", "groupPrefetch", "bits", "4", "score", "5.00", "± error", "0.25",
        "unit", "ops/us", "speedup vs baseline", "2.50", "baseline", "baseline"),
        row(probe, Map.of("benchmark", "groupPrefetch", "bits", "4")));
    assertEquals("3.00", row(probe, Map.of("benchmark", "groupPrefetch", "bits", "8")).get("speedup vs baseline"));
    assertEquals(MarkdownReport.MISSING, row(probe, Map.of("benchmark", "groupPrefetch", "bits", "8")).get("± error"));
    assertEquals("1.00", row(probe, Map.of("benchmark", "baseline", "bits", "8")).get("score"));
    assertTrue(files(dir).contains("probe-thrpt-ProbeBenchmark-thrpt-speedup.png"));
    assertFalse(files(dir).contains("probe-thrpt-ProbeBenchmark-thrpt-per-element.png"), "throughput has no per-element chart");
  }

  @Test
  void aTruncatedFileIsNamedWithTheLineAndNothingIsWritten(@TempDir Path dir) throws IOException {
    Path out = dir.resolve("report");
    Files.createDirectories(out);
    Files.writeString(out.resolve("README.md"), "earlier report");
    var e = assertThrows(ReportException.class, () -> ReportGenerator.generate(
        List.of(sample("join-sweep.json"), sample("truncated.json")), out, ReportSettings.conventions()));
    assertTrue(e.getMessage().startsWith(sample("truncated.json") + " is not valid JSON (line "), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
    assertEquals("earlier report", Files.readString(out.resolve("README.md")));
    assertEquals(Set.of("README.md"), files(out));
  }

  @Test
  void jsonThatIsNotJmhResultsIsRejected() {
    var e = assertThrows(ReportException.class, () -> ReportGenerator.generate(
        List.of(sample("not-jmh.json")), Path.of("unused"), ReportSettings.conventions()));
    assertEquals(sample("not-jmh.json") + " is not JMH's JSON results (-rf json): expected an array of results, found object",
        e.getMessage());
  }

  @Test
  void anUnwritableOutputDirectoryIsReportedInOneLine(@TempDir Path dir) throws IOException {
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    var e = assertThrows(ReportException.class, () -> ReportGenerator.generate(
        List.of(sample("probe-thrpt.json")), file.resolve("report"), ReportSettings.conventions()));
    assertTrue(e.getMessage().startsWith("cannot write the report into " + file.resolve("report") + ": "), e.getMessage());
    assertFalse(e.getMessage().contains("\n"));
    var existingFile = assertThrows(ReportException.class, () -> ReportGenerator.generate(
        List.of(sample("probe-thrpt.json")), file, ReportSettings.conventions()));
    assertTrue(existingFile.getMessage().startsWith("cannot write the report into " + file), existingFile.getMessage());
  }

  @Test
  void optionsThatApplyNowhereAreErrors() {
    var baseline = assertThrows(ReportException.class, () -> ReportGenerator.generate(
        List.of(sample("probe-thrpt.json")), Path.of("unused"),
        new ReportSettings(List.of("ProbeBenchmark:nosuchMethod"), List.of(), null)));
    assertEquals("--baseline ProbeBenchmark:nosuchMethod matches no benchmark of ProbeBenchmark in these results",
        baseline.getMessage());
    var x = assertThrows(ReportException.class, () -> ReportGenerator.generate(
        List.of(sample("probe-thrpt.json")), Path.of("unused"), new ReportSettings(List.of(), List.of("keys"), null)));
    assertEquals("--x-axis keys: no benchmark has a numeric parameter keys with several values in these results",
        x.getMessage());
  }
}
