package dev.memwall.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class ScoreUnitTest {
  private static final String[] TIMES = {"ns", "us", "ms", "s"};

  @Test
  void parsesJmhUnits() {
    assertEquals(new ScoreUnit("ms/op", ScoreUnit.Kind.TIME_PER_OP, 1e-3), ScoreUnit.parse("ms/op"));
    assertEquals(new ScoreUnit("ops/s", ScoreUnit.Kind.OPS_PER_TIME, 1), ScoreUnit.parse("ops/s"));
    assertEquals(ScoreUnit.Kind.TIME_PER_OP, ScoreUnit.parse("min/op").kind());
    assertEquals(ScoreUnit.Kind.OTHER, ScoreUnit.parse("B/op").kind());
    assertEquals(ScoreUnit.Kind.OTHER, ScoreUnit.parse("#").kind());
    assertTrue(ScoreUnit.parse("ops/us").higherIsBetter());
    assertFalse(ScoreUnit.parse("us/op").higherIsBetter());
  }

  @Test
  void convertsBetweenTimeUnits() {
    assertEquals(45_600, ScoreUnit.parse("ms/op").convert(45.6, ScoreUnit.parse("us/op")), 1e-9);
    assertEquals(5_000_000, ScoreUnit.parse("ops/ms").convert(5000, ScoreUnit.parse("ops/s")), 1e-6);
    assertThrows(IllegalArgumentException.class, () -> ScoreUnit.parse("ms/op").convert(1, ScoreUnit.parse("ops/s")));
    assertThrows(IllegalArgumentException.class, () -> ScoreUnit.parse("B/op").convert(1, ScoreUnit.parse("ms/op")));
  }

  @Test
  void picksTheCoarsestUnitKeepingTheSmallestScoreAtLeastOne() {
    assertEquals("ms/op", ScoreUnit.parse("ms/op").readableFor(new double[] {45.6, 626.2}).label());
    assertEquals("us/op", ScoreUnit.parse("ms/op").readableFor(new double[] {0.04, 8000}).label());
    assertEquals("ns/op", ScoreUnit.parse("s/op").readableFor(new double[] {2e-9}).label());
    assertEquals("ops/us", ScoreUnit.parse("ops/s").readableFor(new double[] {1e6, 5e6}).label());
    assertEquals("ops/s", ScoreUnit.parse("ops/s").readableFor(new double[] {0.5}).label()); // nothing reaches 1
    assertEquals("B/op", ScoreUnit.parse("B/op").readableFor(new double[] {0.5}).label());
  }

  @Property(tries = 200)
  void conversionRoundTripsAndTheChosenUnitIsReadable(@ForAll @DoubleRange(min = -6, max = 9) double exponent,
      @ForAll @IntRange(min = 0, max = 3) int from, @ForAll @IntRange(min = 0, max = 3) int to,
      @ForAll boolean throughput) {
    double value = Math.pow(10, exponent);
    ScoreUnit a = ScoreUnit.parse(throughput ? "ops/" + TIMES[from] : TIMES[from] + "/op");
    ScoreUnit b = ScoreUnit.parse(throughput ? "ops/" + TIMES[to] : TIMES[to] + "/op");
    assertEquals(value, b.convert(a.convert(value, b), a), value * 1e-12);
    ScoreUnit readable = a.readableFor(new double[] {value});
    double shown = a.convert(value, readable);
    // at least 1 unless even the finest unit cannot get there; below 1000 unless the coarsest cannot
    boolean finest = readable.label().equals(throughput ? "ops/ns" : "ns/op");
    boolean coarsest = readable.label().equals(throughput ? "ops/s" : "s/op");
    assertTrue(shown >= 1 || (throughput ? coarsest : finest), readable + " shows " + shown);
    assertTrue(shown < 1000 || (throughput ? finest : coarsest), readable + " shows " + shown);
  }
}
