package dev.memwall.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The layout against a direct computation: random grids of methods x algorithms x sizes, scores in
 * mixed units, some rows missing; every speedup equals the baseline's time over the row's time,
 * both converted to seconds independently.
 */
class ReportGroupProperties {
  private static final JmhResult.RunSettings RUN = new JmhResult.RunSettings("1.37", "", "", 1, 1, 3, "1 s", 5, "1 s");
  private static final String[] UNITS = {"ns/op", "us/op", "ms/op", "s/op"};
  private static final double[] SECONDS = {1e-9, 1e-6, 1e-3, 1};

  @Property(tries = 150)
  void speedupsMatchADirectComputation(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3) int methods,
      @ForAll @IntRange(min = 1, max = 4) int algorithms, @ForAll @IntRange(min = 1, max = 5) int sizes) {
    Random random = new Random(seed);
    List<JmhResult> results = new ArrayList<>();
    Map<JmhResult, Double> seconds = new HashMap<>();
    for (int m = 0; m < methods; m++) {
      for (int a = 0; a < algorithms; a++) {
        for (int s = 0; s < sizes; s++) {
          if (random.nextInt(5) == 0) {
            continue; // a missing combination
          }
          int unit = random.nextInt(UNITS.length);
          double secs = Math.pow(10, -8 + 8 * random.nextDouble());
          Map<String, String> params = new LinkedHashMap<>();
          params.put("algorithm", "a" + a);
          params.put("tuples", Long.toString(1000L << (3 * s)));
          var r = new JmhResult("dev.x.Join.m" + m, "avgt", params, secs / SECONDS[unit], Double.NaN, UNITS[unit], RUN);
          results.add(r);
          seconds.put(r, secs);
        }
      }
    }
    if (results.isEmpty()) {
      return;
    }
    var settings = new ReportSettings(List.of("algorithm=a0"), List.of(), null);
    List<ReportGroup> groups = ReportGroup.of("r.json", results, settings);
    assertEquals(1, groups.size());
    ReportGroup group = groups.getFirst();
    assertEquals(results.size(), group.rows().size());
    for (ReportGroup.Row row : group.rows()) {
      JmhResult r = row.result();
      assertEquals(seconds.get(r), row.score() * group.unit().seconds(), seconds.get(r) * 1e-9);
      JmhResult expected = results.stream().filter(b -> b.method().equals(r.method())
          && b.params().get("algorithm").equals("a0") && b.params().get("tuples").equals(r.params().get("tuples")))
          .findFirst().orElse(null);
      assertEquals(expected, row.baseline());
      if (expected == null) {
        assertTrue(Double.isNaN(row.speedup()));
      } else {
        assertEquals(seconds.get(expected) / seconds.get(r), row.speedup(), row.speedup() * 1e-9);
      }
      if (r.params().get("algorithm").equals("a0")) {
        assertTrue(row.isBaseline());
      }
    }
    // x axis: tuples once it varies; series are method x algorithm
    boolean tuplesVary = results.stream().map(r -> r.params().get("tuples")).distinct().count() > 1;
    assertEquals(tuplesVary, group.xParam().isPresent());
    if (tuplesVary) {
      assertEquals("tuples", group.xParam().get());
      for (ReportGroup.Series series : group.series()) {
        for (int i = 1; i < series.rows().size(); i++) {
          assertTrue(series.rows().get(i - 1).x() < series.rows().get(i).x(), "sorted by x within " + series.label());
        }
      }
    }
  }

  @Test
  void numericParametersWithTheMostValuesMakeTheXAxisAndSpanningDecadesMakesItLogarithmic() {
    List<JmhResult> results = new ArrayList<>();
    for (String bits : List.of("4", "8")) {
      for (String tuples : List.of("1000", "100000", "10000000")) {
        results.add(new JmhResult("dev.x.Radix.join", "avgt", Map.of("bits", bits, "tuples", tuples),
            Double.parseDouble(tuples) / 1e3, 0.1, "us/op", RUN));
      }
    }
    ReportGroup group = ReportGroup.of("r.json", results, ReportSettings.conventions()).getFirst();
    assertEquals("tuples", group.xParam().orElseThrow());
    assertTrue(group.logX());
    assertTrue(group.logScores());
    assertTrue(group.perElement());
    assertEquals(List.of("bits=4", "bits=8"), group.series().stream().map(ReportGroup.Series::label).toList());
    assertFalse(group.baseline().isPresent());

    ReportGroup byBits = ReportGroup.of("r.json", results,
        new ReportSettings(List.of(), List.of("Radix:bits"), null)).getFirst();
    assertEquals("bits", byBits.xParam().orElseThrow());
    assertFalse(byBits.logX());
    assertFalse(byBits.perElement(), "bits is not an input size");

    ReportGroup bars = ReportGroup.of("r.json", results, new ReportSettings(List.of(), List.of("-"), null)).getFirst();
    assertTrue(bars.xParam().isEmpty());
  }
}
