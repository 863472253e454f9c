package dev.memwall.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JmhResultsTest {
  @TempDir
  Path dir;

  private Path file(String json) throws IOException {
    return Files.writeString(dir.resolve("r.json"), json);
  }

  private String error(String json) throws IOException {
    Path file = file(json);
    var e = assertThrows(ReportException.class, () -> JmhResults.read(file));
    assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
    assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
    return e.getMessage().substring(file.toString().length());
  }

  @Test
  void readsScoresParamsAndRunSettings() throws Exception {
    List<JmhResult> results = JmhResults.read(ReportFixtures.sample("tpch-q1-q6.json"));
    assertEquals(8, results.size());
    JmhResult first = results.getFirst();
    assertEquals("dev.memwall.bench.TpchQueryBenchmark", first.className());
    assertEquals("duckdb", first.method());
    assertEquals(Map.of("query", "1", "scaleFactor", "1", "threads", "1"), first.params());
    assertEquals(List.of("query", "scaleFactor", "threads"), List.copyOf(first.params().keySet()), "JMH's order");
    assertEquals(240.20053566666667, first.score());
    assertEquals(17.045065640999375, first.scoreError());
    assertEquals("ms/op", first.scoreUnit());
    assertEquals(new JmhResult.RunSettings("1.37", "OpenJDK 64-Bit Server VM", "25.0.3+9-LTS", 1, 1, 5, "2 s", 5, "2 s"),
        first.run());
  }

  @Test
  void nanErrorsAndMissingParamsAreAccepted() throws Exception {
    var results = JmhResults.read(file("""
        [{"benchmark": "a.B.m", "mode": "ss", "primaryMetric": {"score": 3.5, "scoreError": "NaN", "scoreUnit": "s/op"}}]
        """));
    assertTrue(Double.isNaN(results.getFirst().scoreError()));
    assertEquals(Map.of(), results.getFirst().params());
  }

  @Test
  void malformedAndForeignJsonGetOneLineNamingTheProblem() throws Exception {
    assertEquals(" is empty, not JMH's JSON results (-rf json)", error(""));
    assertTrue(error("[{\"benchmark\": ").startsWith(" is not valid JSON (line 1, column "));
    assertTrue(error("[] []").startsWith(" is not valid JSON (line 1, column "), "trailing content");
    assertEquals(" holds no benchmark results (an empty array)", error("[]"));
    assertEquals(", result #1 is not an object; is this JMH's JSON results (-rf json)?", error("[1]"));
    assertEquals(", result #1 has no benchmark; is this JMH's JSON results (-rf json)?", error("[{}]"));
    assertEquals(", result #1: benchmark 'nodot' is not Class.method",
        error("[{\"benchmark\": \"nodot\", \"mode\": \"avgt\"}]"));
    assertEquals(", result #1 (a.B.m) has no primaryMetric; is this JMH's JSON results (-rf json)?",
        error("[{\"benchmark\": \"a.B.m\", \"mode\": \"avgt\"}]"));
    assertEquals(", result #1 primaryMetric has no numeric score (found \"fast\")", error("""
        [{"benchmark": "a.B.m", "mode": "avgt", "primaryMetric": {"score": "fast", "scoreUnit": "s/op"}}]"""));
    assertEquals(", result #1: param n has no value", error("""
        [{"benchmark": "a.B.m", "mode": "avgt", "params": {"n": null},
          "primaryMetric": {"score": 1, "scoreError": 0, "scoreUnit": "s/op"}}]"""));
  }

  @Test
  void aMissingFileIsNamed() {
    var e = assertThrows(ReportException.class, () -> JmhResults.read(dir.resolve("absent.json")));
    assertEquals(dir.resolve("absent.json") + ": no such file", e.getMessage());
  }
}
