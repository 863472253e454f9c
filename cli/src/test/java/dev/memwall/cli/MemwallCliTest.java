package dev.memwall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.cli.report.CalibrationCharts;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.data.TpchManifest;
import dev.memwall.tpch.query.LoopQ6;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.run.TpchRunner;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@ExtendWith(LeakCheck.class)
class MemwallCliTest {
  @TempDir Path cache;

  record Run(int exitCode, String out, String err) {
    /** Asserts the run failed with {@code code} and exactly one line on stderr containing {@code text}. */
    void failedWith(int code, String text) {
      assertEquals(code, exitCode, "exit code; stderr: " + err + " stdout: " + out);
      assertEquals(1, err.strip().lines().count(), "one line on stderr, got: " + err);
      assertTrue(err.contains(text), "stderr should mention '" + text + "': " + err);
    }
  }

  /** Q6 is the test loop query; with {@code skew} it returns a wrong revenue. */
  static Run run(long skew, String... args) {
    IntFunction<TpchQuery> queries = number -> {
      if (number == 6) {
        return new LoopQ6(6, skew);
      }
      throw new IllegalArgumentException("TPC-H query " + number + " is not implemented yet (implemented: [6])");
    };
    return execute(MemwallCli.commandLine(queries, () -> List.of(6)), args);
  }

  static Run execute(CommandLine line, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    line.setOut(new PrintWriter(out, true));
    line.setErr(new PrintWriter(err, true));
    int code = line.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  /** A tpch command line over this test's cache, on the hand-written plans: what {@link #run} substitutes. */
  String[] tpch(String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("tpch", "--sf", "0.01", "--data", cache.toString(),
        "--runs", "2", "--warmup", "1", "--threads", "2", "--quiet", "--report", cache.resolve("report").toString(),
        "--plans", "hand"));
    args.addAll(Arrays.asList(more));
    return args.toArray(String[]::new);
  }

  @Test
  void helpOnEveryCommand() {
    for (String[] args : List.of(new String[] {"--help"}, new String[] {"tpch", "--help"},
        new String[] {"calibrate", "--help"}, new String[] {"bench", "--help"})) {
      Run run = execute(MemwallCli.commandLine(), args);
      assertEquals(0, run.exitCode(), String.join(" ", args));
      assertTrue(run.out().contains("Usage:"), run.out());
    }
    Run tpch = execute(MemwallCli.commandLine(), "tpch", "--help");
    for (String option : List.of("--sf", "--queries", "--runs", "--warmup", "--warmup-scope", "--threads", "--data",
        "--verify", "--compare", "--rounds", "--engine", "--master")) {
      assertTrue(tpch.out().contains(option), option);
    }
  }

  @Test
  void aSuiteWarmUpRunsEveryQueryBeforeTimingAnyAndAQueryWarmUpRunsEachJustBefore() {
    for (String scope : List.of("suite", "query")) {
      List<String> calls = new ArrayList<>();
      // Q6 and Q14 both as the loop query (Q14's parameters hold a DATE as Q6's do), each run recorded
      IntFunction<TpchQuery> queries = number -> new TpchQuery() {
        final LoopQ6 loop = new LoopQ6(number, 0);

        @Override
        public int number() {
          return number;
        }

        @Override
        public Table run(TpchDatabase database, QueryParameters parameters, ExecutionContext context) {
          calls.add("Q" + number);
          return loop.run(database, TpchParameters.validation(6, 0.01), context);
        }
      };
      Run run = execute(MemwallCli.commandLine(queries, () -> List.of(6, 14)),
          tpch("--queries", "6,14", "--verify", "none", "--warmup-scope", scope));
      assertEquals(0, run.exitCode(), run.err() + run.out());
      // --warmup 1 --runs 2
      List<String> expected = scope.equals("suite") ? List.of("Q6", "Q14", "Q6", "Q6", "Q14", "Q14")
          : List.of("Q6", "Q6", "Q6", "Q14", "Q14", "Q14");
      assertEquals(expected, calls, scope);
      assertEquals(scope.equals("suite"), run.out().contains("1 warm-up (all queries first) + 2 timed runs"), run.out());
      assertTrue(run.out().contains("first ms"), "the first (cold) run is reported: " + run.out());
    }
    run(0, tpch("--warmup-scope", "bogus")).failedWith(2, "--warmup-scope is 'suite' or 'query', not 'bogus'");
  }

  @Test
  void benchPointsAtTheLauncher() {
    execute(MemwallCli.commandLine(), "bench").failedWith(2, "./memwall bench");
  }

  @Test
  void calibrateMeasuresOnceThenReusesAndRemeasuresACorruptProfile() throws Exception {
    Run first = execute(MemwallCli.commandLine(), "calibrate", "--quick", "--data", cache.toString());
    assertEquals(0, first.exitCode(), first.err() + first.out());
    assertTrue(first.out().contains("measured and saved") && first.out().contains("T1"), first.out());
    Path profile = cache.resolve(dev.memwall.core.machine.MachineProfile.FILE_NAME);
    assertTrue(java.nio.file.Files.isRegularFile(profile));
    assertTrue(first.out().contains("model 1") && first.out().contains("ideal"), "the scan models are printed");
    for (String chart : List.of(CalibrationCharts.LATENCY, CalibrationCharts.TLB, CalibrationCharts.SCAN)) {
      java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(cache.resolve("calibration").resolve(chart).toFile());
      assertTrue(image != null && image.getWidth() == 900 && image.getHeight() == 560, chart + " is a 900x560 PNG");
    }

    Run second = execute(MemwallCli.commandLine(), "calibrate", "--data", cache.toString());
    assertEquals(0, second.exitCode(), second.err());
    assertTrue(second.out().startsWith("machine profile: "), second.out());
    assertTrue(second.err().isEmpty(), "a stored profile is not measured again: " + second.err());

    java.nio.file.Files.writeString(profile, "format.version=1\ncaches=banana\n");
    Run third = execute(MemwallCli.commandLine(), "calibrate", "--quick", "--data", cache.toString());
    assertEquals(0, third.exitCode(), third.err());
    assertTrue(third.out().contains("measured and saved"), "a corrupt profile is measured anew: " + third.out());
  }

  @Test
  void profileKeepsAFlameGraphPerQueryAndSaysWhenNothingWasCounted() throws Exception {
    Run run = run(0, tpch("--profile", "cpu"));
    assertEquals(0, run.exitCode(), run.err() + run.out());
    Path flameGraph = cache.resolve("report").resolve("profiles").resolve("q6-cpu.html");
    assertTrue(run.out().contains("Q6 flame graph: " + flameGraph), run.out());
    assertTrue(Files.readString(flameGraph).contains("LoopQ6"), "the flame graph shows the query's frames");
    if (!dev.memwall.hw.HardwareCounters.availability().available()) {
      assertTrue(run.out().contains("stall breakdown: unavailable, no hardware counters"), run.out());
    }
    Run rounds = run(0, tpch("--profile", "cpu", "--rounds", "2"));
    assertEquals(0, rounds.exitCode(), rounds.err() + rounds.out());
    assertEquals(1, rounds.out().lines().filter(l -> l.startsWith("Q6 flame graph: ")).count(),
        "profiled in the first round only: " + rounds.out());
    run(0, tpch("--profile", "bogus")).failedWith(2, "unknown profiling event 'bogus'");
  }

  @Test
  void unwritableReportDirectoryIsNamed() throws Exception {
    Path blocked = cache.resolve("blocked");
    Files.writeString(blocked, "a file, not a directory");
    run(0, tpch("--report", blocked.resolve("r").toString())).failedWith(MemwallCli.EXIT_RESOURCE,
        "cannot write the report into " + blocked.resolve("r"));
  }

  @Test
  void calibrateNamesAnUnwritableChartDirectory() throws Exception {
    execute(MemwallCli.commandLine(), "calibrate", "--quick", "--data", cache.toString()); // measures once
    Path blocked = cache.resolve("blocked");
    Files.writeString(blocked, "a file, not a directory");
    Run run = execute(MemwallCli.commandLine(), "calibrate", "--data", cache.toString(), "--charts",
        blocked.resolve("charts").toString());
    run.failedWith(MemwallCli.EXIT_RESOURCE, "cannot draw the charts into " + blocked.resolve("charts"));
  }

  @Test
  void runsAndVerifiesAgainstDuckDbAndComparesTimes() throws Exception {
    Run run = run(0, tpch("--queries", "6", "--verify", "duckdb", "--compare", "duckdb"));
    assertEquals(0, run.exitCode(), run.err() + run.out());
    assertTrue(run.err().isEmpty(), run.err());
    String q6 = run.out().lines().filter(l -> l.startsWith("Q6 ")).findFirst().orElseThrow(() -> new AssertionError(run.out()));
    List<String> cells = Arrays.asList(q6.trim().split("\\s+"));
    assertEquals(List.of("Q6", "1"), cells.subList(0, 2));
    assertEquals("yes", cells.get(5), q6); // after best, median and first ms
    assertTrue(Double.parseDouble(cells.get(4)) > 0, "the first run's time: " + q6);
    assertEquals(10, cells.size(), q6); // and DuckDB's best, median and first ms, the ratio
    assertTrue(Double.parseDouble(cells.get(8)) > 0, "DuckDB's first run: " + q6);
    assertTrue(run.out().contains("compared median"), run.out());
    assertTrue(run.out().contains("compared = DuckDB v") && run.out().contains("(own process)"), run.out());
    assertTrue(run.out().lines().anyMatch(l -> l.startsWith("total")), run.out());

    Path report = cache.resolve("report");
    String markdown = Files.readString(report.resolve("tpch-memwall-hand-sf0.01-2t.md"));
    assertTrue(markdown.startsWith("# TPC-H SF 0.01 on memwall (hand-written plans) and DuckDB v"), markdown);
    assertTrue(markdown.contains(", 2 threads"), markdown);
    assertTrue(markdown.lines().anyMatch(l -> l.startsWith("measured ") && l.contains(" UTC at commit ")
        && l.contains(Runtime.getRuntime().availableProcessors() + " cores")), "stamped with date, commit and machine: " + markdown);
    assertTrue(markdown.contains("| Q6 | 1 | ") && markdown.contains("| yes |") && markdown.contains("first ms | ratio | ratio range |")
        && markdown.contains("memwall (hand-written plans) median ms"), markdown);
    List<String> csv = Files.readAllLines(report.resolve("tpch-memwall-hand-sf0.01-2t.csv"));
    assertEquals(2, csv.size(), csv.toString());
    String[] row = csv.get(1).split(",");
    assertEquals(List.of("6", "1", "yes"), List.of(row[0], row[1], row[5]));
    assertTrue(Double.parseDouble(row[4]) > 0, "the first run's time: " + csv.get(1));
    assertTrue(Double.parseDouble(row[8]) > 0, "DuckDB's first run: " + csv.get(1));
    assertTrue(Double.parseDouble(row[9]) > 0, "a ratio to DuckDB: " + csv.get(1));
    assertEquals(row[9], row[10], "one round: the ratio is its own range");
    java.awt.image.BufferedImage chart = javax.imageio.ImageIO.read(report.resolve("tpch-memwall-hand-sf0.01-2t.png").toFile());
    assertTrue(chart != null && chart.getWidth() == 900, "a 900-pixel wide PNG chart");
  }

  @Test
  void roundsAlternateTheEnginesAndReportEachRoundsTotalRatio() throws Exception {
    Run run = run(0, tpch("--compare", "duckdb-in-process", "--rounds", "3", "--verify", "none"));
    assertEquals(0, run.exitCode(), run.err() + run.out());
    assertTrue(run.out().contains("2 timed runs in each of 3 rounds"), run.out());
    assertTrue(run.out().contains("ratio range"), run.out());
    String byRound = run.out().lines().filter(l -> l.contains("total ratio by round: ")).findFirst()
        .orElseThrow(() -> new AssertionError(run.out()));
    assertEquals(3, byRound.substring(byRound.indexOf("by round: ") + 10).split(", ").length, byRound);
    assertFalse(run.out().contains("(own process)"), "duckdb-in-process runs in this JVM: " + run.out());
    String q6 = run.out().lines().filter(l -> l.startsWith("Q6 ")).findFirst().orElseThrow();
    String[] range = q6.trim().split("\\s+")[10].split("-");
    assertTrue(Double.parseDouble(range[0]) <= Double.parseDouble(range[1]), q6);
  }

  @Test
  void seededParametersArePrintedAndVerifiedAgainstDuckDb() {
    Run run = run(0, tpch("--seed", "11"));
    assertEquals(0, run.exitCode(), run.err() + run.out());
    assertTrue(run.out().contains("parameters from seed 11:"), run.out());
    assertTrue(run.out().contains("  " + dev.memwall.tpch.query.TpchParameters.random(6, 0.01, 11)), run.out());
    assertTrue(run.out().contains("verified against DuckDB"), run.out());
  }

  @Test
  void wrongResultFailsVerification() {
    Run run = run(10_001, tpch("--verify", "duckdb"));
    assertEquals(MemwallCli.EXIT_VERIFICATION_FAILED, run.exitCode(), run.err() + run.out());
    assertTrue(run.out().contains("NO"), run.out());
    assertTrue(run.out().contains("Q6 NOT verified: Q6: 1 values differ"), run.out());
  }

  @Test
  void badInputGetsOneLineAndExitCode2() {
    run(0, tpch("--sf", "0")).failedWith(2, "scale factor must be positive");
    run(0, tpch("--sf", "-1")).failedWith(2, "scale factor must be positive");
    run(0, tpch("--queries", "23")).failedWith(2, "query 23");
    run(0, tpch("--queries", "1")).failedWith(2, "not implemented");
    execute(MemwallCli.commandLine(), tpch("--queries", "23")).failedWith(2, "unknown TPC-H query 23");
    run(0, tpch("--runs", "0")).failedWith(2, "runs must be at least 1");
    run(0, tpch("--rounds", "0")).failedWith(2, "rounds must be at least 1");
    run(0, tpch("--verify", "answers")).failedWith(2, "SF 1 only");
    run(0, tpch("--verify", "maybe")).failedWith(2, "--verify");
    run(0, tpch("--compare", "postgres")).failedWith(2, "--compare");
    run(0, tpch("--engine", "postgres")).failedWith(2, "--engine");
    run(0, "tpch", "--sf", "0.01", "--data", cache.toString(), "--engine", "spark")
        .failedWith(2, "no engine 'spark' on the class path");
    run(0, tpch("--master", "local[1]")).failedWith(2, "--master is Spark's");
    run(0, tpch("--compare", "comet")).failedWith(2, "system property memwall.comet.classpath");
    run(0, tpch("--compare", "comet", "--master", "spark://127.0.0.1:7077")).failedWith(2, "not with --master");
    run(0, tpch("--sf", "abc")).failedWith(2, "abc");
    run(0, tpch("--seed", "x1")).failedWith(2, "x1");
    run(0, tpch("--sf", "1", "--seed", "3", "--verify", "answers")).failedWith(2, "only for the validation parameters");
    run(0, tpch("--no-such-option")).failedWith(2, "--no-such-option");
  }

  @Test
  void theComparedEngineRunsInAChildUnlessAskedOrOnACluster() {
    assertFalse(TpchCommand.comparedInThisJvm("spark", null));
    assertFalse(TpchCommand.comparedInThisJvm("spark", "local[2]"));
    assertTrue(TpchCommand.comparedInThisJvm("spark", "spark://127.0.0.1:7077"), "a second application would starve");
    assertTrue(TpchCommand.comparedInThisJvm("spark-in-process", null));
    assertTrue(TpchCommand.comparedInThisJvm("duckdb-in-process", null));
  }

  @Test
  void verificationDefaultsToAnswersOnlyAtSf1WithAnswers() {
    Path answers = Path.of("answers");
    assertEquals(TpchRunner.Verification.ANSWERS, TpchCommand.verification(null, 1, Optional.of(answers), false));
    assertEquals(TpchRunner.Verification.DUCKDB, TpchCommand.verification(null, 1, Optional.empty(), false));
    assertEquals(TpchRunner.Verification.DUCKDB, TpchCommand.verification(null, 0.1, Optional.of(answers), false));
    assertEquals(TpchRunner.Verification.NONE, TpchCommand.verification("none", 1, Optional.of(answers), false));
    assertEquals(TpchRunner.Verification.DUCKDB, TpchCommand.verification(null, 1, Optional.of(answers), true),
        "random parameters are checked against DuckDB, never the official answers");
    assertEquals(512L << 20, TpchCommand.parseSize("512m"));
    assertEquals(4L << 30, TpchCommand.parseSize("4G"));
  }

  @Test
  void unwritableCacheDirectoryIsNamed() throws Exception {
    Path file = Files.writeString(cache.resolve("plain-file"), "x");
    Run run = run(0, "tpch", "--sf", "0.01", "--data", file.resolve("cache").toString(), "--queries", "6", "--quiet");
    run.failedWith(MemwallCli.EXIT_RESOURCE, file.resolve("cache").toString());
  }

  @Test
  void aCorruptDataFileIsRepairedAndAnUnrepairableOneNamed() throws Exception {
    assertEquals(0, run(0, tpch("--verify", "none")).exitCode());
    Path orders = TpchManifest.file(cache.resolve("sf0.01"), "orders", 1);
    byte[] bytes = Files.readAllBytes(orders);
    Files.write(orders, Arrays.copyOf(bytes, bytes.length / 2));
    Run repaired = run(0, tpch("--verify", "duckdb"));
    assertEquals(0, repaired.exitCode(), repaired.err() + repaired.out());
    assertTrue(Arrays.equals(bytes, Files.readAllBytes(orders)), "the truncated file is generated again");
    // a set without checksums cannot tell which bytes are right: the Arrow reader names the file
    Path manifest = cache.resolve("sf0.01").resolve(TpchManifest.FILE_NAME);
    Files.write(manifest, Files.readAllLines(manifest).stream().filter(l -> !l.contains(".crc32c=")).toList());
    Files.write(orders, Arrays.copyOf(bytes, bytes.length / 2));
    run(0, tpch("--verify", "none")).failedWith(MemwallCli.EXIT_RESOURCE, "orders-1.arrow");
  }

  @Test
  void tooSmallBudgetIsReported() {
    run(0, tpch("--budget", "64k", "--verify", "none")).failedWith(MemwallCli.EXIT_RESOURCE, "memory budget");
    run(0, tpch("--budget", "lots")).failedWith(2, "--budget");
  }
}
