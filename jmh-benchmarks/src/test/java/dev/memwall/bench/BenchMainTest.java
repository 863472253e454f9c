package dev.memwall.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.bench.report.JmhResults;
import dev.memwall.hw.HardwareCounters;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line: exit codes and one-line messages for bad input, and a real (in-process) run. */
class BenchMainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    var main = new BenchMain(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        () -> new HardwareCounters.Availability(false, "no PMU in this test"));
    return main.run(args);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private void assertOneErrorLine(String start) {
    String text = err();
    assertTrue(text.startsWith("memwall bench: " + start), text);
    assertEquals(1, text.lines().count(), text);
  }

  private static Path sample(String name) throws URISyntaxException {
    return Path.of(BenchMainTest.class.getResource("/jmh-results/" + name).toURI());
  }

  @Test
  void anUnknownEventIsOneLineAndExitStatus2() {
    assertEquals(2, run("ScanBandwidth", "--profile", "cache-mises"));
    assertOneErrorLine("unknown profiling event 'cache-mises'; valid events: cpu, wall");
    assertTrue(err().contains("cache-misses"));
    assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing ran");
  }

  @Test
  void aCorruptResultFileIsOneLineAndExitStatus2(@TempDir Path dir) throws Exception {
    assertEquals(2, run("--report", sample("truncated.json").toString(), "--out", dir.toString()));
    assertOneErrorLine(sample("truncated.json") + " is not valid JSON (line ");
    try (var files = Files.list(dir)) {
      assertEquals(0, files.count());
    }
  }

  @Test
  void anUnwritableReportDirectoryIsOneLineAndExitStatus2(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("file"), "x");
    assertEquals(2, run("--report", sample("probe-thrpt.json").toString(), "--out", file.resolve("r").toString()));
    assertOneErrorLine("cannot write the report into " + file.resolve("r") + ": ");
  }

  @Test
  void badOptionsAreOneLineAndExitStatus2() {
    assertEquals(2, run("-f", "many"));
    assertOneErrorLine("bad JMH option: ");
    err.reset();
    assertEquals(2, run("--out", "x"));
    assertOneErrorLine("--out, --baseline and --x-axis belong to --report");
    err.reset();
    assertEquals(2, run("--profile"));
    assertOneErrorLine("Missing required parameter for option '--profile'");
    err.reset();
    assertEquals(2, run("--report", "--baseline", "*a*"));
    assertOneErrorLine("baseline selector '*a*' has more than one '*'");
  }

  @Test
  void theDefaultReportLeavesOutQuickSmokeRuns() {
    assertTrue(BenchMain.isStoredResult("scan-bandwidth.json"));
    assertTrue(BenchMain.isStoredResult("ScanBandwidth-20261122-065012.json"));
    assertEquals(false, BenchMain.isStoredResult("quick-ScanBandwidth-20261122-065012.json"));
    assertEquals(false, BenchMain.isStoredResult("notes.txt"));
  }

  @Test
  void theReportOfStoredResultsIsWritten(@TempDir Path dir) throws Exception {
    assertEquals(0, run("--report", sample("scan-bandwidth.json").toString(), sample("tpch-q1-q6.json").toString(),
        "--out", dir.toString()), err());
    assertTrue(Files.readString(dir.resolve("README.md")).contains("### TpchQueryBenchmark (average time)"));
    assertTrue(Files.isRegularFile(dir.resolve("tpch-q1-q6-TpchQueryBenchmark-avgt-speedup.png")));
    assertEquals("memwall bench: wrote " + dir.resolve("README.md") + " and 4 charts from 2 result files",
        out.toString(StandardCharsets.UTF_8).strip());
  }

  @Test
  void aQuickInProcessRunWritesJsonResultsTheReportReads(@TempDir Path dir) throws Exception {
    Path results = dir.resolve("results/scan.json");
    // JMH's /tmp/jmh.lock keeps two runs apart; benchmarks of other work on this machine must not fail this test.
    System.setProperty("jmh.ignoreLock", "true");
    // -f 0: in this JVM, so the test stays fast; one tiny scan, quick defaults for the rest.
    int status = run("ScanBandwidthBenchmark.sumSegment", "--quick", "-f", "0", "-p", "rows=1000", "-rff",
        results.toString());
    assertEquals(0, status, err());
    var written = JmhResults.read(results);
    assertEquals(1, written.size());
    assertEquals("dev.memwall.bench.ScanBandwidthBenchmark.sumSegment", written.getFirst().benchmark());
    assertEquals(1, written.getFirst().run().warmupIterations(), "--quick's warm-up");
    assertEquals(2, written.getFirst().run().measurementIterations(), "--quick's measurement");
    assertEquals("200 ms", written.getFirst().run().measurementTime());
    assertTrue(written.getFirst().score() > 0);
    assertEquals(0, run("--report", results.toString(), "--out", dir.resolve("report").toString()), err());
    assertTrue(Files.isRegularFile(dir.resolve("report/scan-ScanBandwidthBenchmark-avgt-scores.png")));
  }
}
