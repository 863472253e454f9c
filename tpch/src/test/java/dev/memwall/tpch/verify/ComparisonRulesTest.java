package dev.memwall.tpch.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ComparisonRulesTest {
  @TempDir Path dir;

  @Test
  void strIsExactUpToSurroundingBlanksAndCaseSensitive() {
    assertNull(ColumnPrecision.STR.mismatch("  Supplier#000005359       ", "Supplier#000005359"));
    assertNotNull(ColumnPrecision.STR.mismatch("Supplier#000005359", "supplier#000005359"));
    assertNotNull(ColumnPrecision.STR.mismatch("A", "B"));
    assertNull(ColumnPrecision.STR.mismatch("1995-03-15", LocalDate.of(1995, 3, 15)));
    assertNull(ColumnPrecision.STR.mismatch("1995-03-15", java.sql.Date.valueOf("1995-03-15")));
    assertNotNull(ColumnPrecision.STR.mismatch("1995-03-15", LocalDate.of(1995, 3, 16)));
    assertNotNull(ColumnPrecision.STR.mismatch("x", null));
  }

  @Test
  void nullMatchesOnlyNull() {
    for (ColumnPrecision rule : ColumnPrecision.values()) {
      assertNull(rule.mismatch("NULL", null), rule.token());
      assertNotNull(rule.mismatch("0", null), rule.token());
      if (rule != ColumnPrecision.STR) {
        assertNotNull(rule.mismatch("NULL", 0L), rule.token());
        assertNotNull(rule.mismatch("NULL", new BigDecimal("0.00")), rule.token());
      }
    }
  }

  @Test
  void intAndCntAreExact() {
    for (ColumnPrecision exact : List.of(ColumnPrecision.INT, ColumnPrecision.CNT)) {
      assertNull(exact.mismatch("               1478493", 1478493L));
      assertNull(exact.mismatch("15", 15));
      assertNull(exact.mismatch("15", new BigDecimal("15.00")));
      assertNotNull(exact.mismatch("1478493", 1478494L));
      assertNotNull(exact.mismatch("15", 15.000001));
      assertNotNull(exact.mismatch("15", "fifteen"));
    }
  }

  @Test
  void numIsExactAtTheExpectedDecimals() {
    assertNull(ColumnPrecision.NUM.mismatch("9938.53", new BigDecimal("9938.53")));
    assertNull(ColumnPrecision.NUM.mismatch("9938.53", 9938.53));
    assertNotNull(ColumnPrecision.NUM.mismatch("9938.53", new BigDecimal("9938.54")));
    assertNotNull(ColumnPrecision.NUM.mismatch("9938.53", 9938.536));
  }

  @Test
  void sumIsWithinOneHundred() {
    assertNull(ColumnPrecision.SUM.mismatch("123141078.23", new BigDecimal("123141078.2283")));
    assertNull(ColumnPrecision.SUM.mismatch("123141078.23", new BigDecimal("123141178.23")));
    assertNull(ColumnPrecision.SUM.mismatch("123141078.23", new BigDecimal("123140978.23")));
    assertNotNull(ColumnPrecision.SUM.mismatch("123141078.23", new BigDecimal("123141178.24")));
    assertNotNull(ColumnPrecision.SUM.mismatch("123141078.23", 123140978.22));
  }

  @Test
  void avgAndRatAreWithinOnePercentAfterRoundingToCents() {
    for (ColumnPrecision relative : List.of(ColumnPrecision.AVG, ColumnPrecision.RAT)) {
      assertNull(relative.mismatch("25.52", new BigDecimal("25.5220100")));
      // 1.01 * 25.52 = 25.7752: 25.7749 rounds to 25.77, inside; 25.7851 rounds to 25.79, outside.
      assertNull(relative.mismatch("25.52", 25.7749));
      assertNotNull(relative.mismatch("25.52", 25.7851));
      // 0.99 * 25.52 = 25.2648: 25.265 rounds to 25.27, inside; 25.2549 rounds to 25.25, outside.
      assertNull(relative.mismatch("25.52", 25.265));
      assertNotNull(relative.mismatch("25.52", 25.2549));
      // Rounding happens before the comparison: 0.0049 rounds to 0.00 = v.
      assertNull(relative.mismatch("0.00", 0.0049));
      assertNotNull(relative.mismatch("0.00", 0.005));
      // Negative values: the band is symmetric around v.
      assertNull(relative.mismatch("-100.00", -100.9));
      assertNotNull(relative.mismatch("-100.00", -101.2));
    }
  }

  @Property(tries = 200)
  void sumAcceptsExactlyTheHundredDollarBand(@ForAll @LongRange(min = -100_000_000, max = 100_000_000) long cents,
      @ForAll @LongRange(min = -20_000, max = 20_000) long deltaCents) {
    BigDecimal expected = BigDecimal.valueOf(cents, 2);
    BigDecimal actual = expected.add(BigDecimal.valueOf(deltaCents, 2));
    assertEquals(Math.abs(deltaCents) <= 10_000, ColumnPrecision.SUM.mismatch(expected.toPlainString(), actual) == null);
  }

  @Test
  void unknownTokenIsRejected() {
    var e = assertThrows(IllegalArgumentException.class, () -> ColumnPrecision.ofToken("dec"));
    assertTrue(e.getMessage().contains("dec"));
  }

  @Test
  void parsesTheOfficialAnswersAndPrecisions() {
    // The answers are not part of the repository: they lie in shared/ beside the clone (as in CI),
    // or where MEMWALL_TPCH_ANSWERS points.
    var located = OfficialAnswers.locate();
    Assumptions.assumeTrue(located.isPresent(),
        "shared/tpch/answers-sf1 not found above " + Path.of("").toAbsolutePath() + " and MEMWALL_TPCH_ANSWERS unset");
    OfficialAnswers answers = new OfficialAnswers(located.get());
    ExpectedResult q1 = answers.expected(1);
    assertEquals(10, q1.columns().size());
    assertEquals(4, q1.rows().size());
    assertEquals(List.of("A", "F", "37734107.00", "56586554400.73", "53758257134.87", "55909065222.83", "25.52",
        "38273.13", "0.05", "1478493"), q1.rows().getFirst());
    assertEquals(ColumnPrecision.CNT, q1.precisions().getLast());
    assertEquals(List.of("123141078.23"), answers.expected(6).rows().getFirst());
    for (int query = 1; query <= 22; query++) {
      ExpectedResult expected = answers.expected(query);
      assertEquals(ColumnPrecision.forQuery(query), expected.precisions(), "Q" + query);
      assertFalse(expected.rows().isEmpty(), "Q" + query);
    }
    assertEquals(100, answers.expected(2).rows().size());
    assertThrows(IllegalArgumentException.class, () -> answers.expected(23));
  }

  @Test
  void parsingHandlesTrailingPipesAndRejectsRaggedRows() throws Exception {
    List<ColumnPrecision> precisions = List.of(ColumnPrecision.STR, ColumnPrecision.SUM);
    ExpectedResult parsed = OfficialAnswers.parse(3, List.of("a  |b  ", "x |  1.00|", "", "y|2.00"), precisions);
    assertEquals(List.of(List.of("x", "1.00"), List.of("y", "2.00")), parsed.rows());
    assertThrows(IllegalArgumentException.class, () -> OfficialAnswers.parse(3, List.of("a|b", "x|1|2|3"), precisions));
    Files.writeString(dir.resolve("colprecision.txt"), "str\nint\n");
    var e = assertThrows(IllegalArgumentException.class, () -> new OfficialAnswers(dir));
    assertTrue(e.getMessage().contains("colprecision.txt"), e.getMessage());
  }

  @Test
  void comparatorReportsRowCountsAndFirstDifferences() {
    ExpectedResult expected = new ExpectedResult(1, List.of("flag", "total", "n"),
        List.of(ColumnPrecision.STR, ColumnPrecision.SUM, ColumnPrecision.CNT),
        List.of(List.of("A", "1000.00", "3"), List.of("N", "2000.00", "4")));
    List<List<Object>> good = List.of(List.of("A", new BigDecimal("1000.50"), 3L), List.of("N", 2000.0, 4));
    assertTrue(ResultComparator.compare(good, expected).matches());
    assertEquals("ok", ResultComparator.compare(good, expected).message());

    var shorter = ResultComparator.compare(good.subList(0, 1), expected);
    assertFalse(shorter.matches());
    assertTrue(shorter.message().contains("1 rows, expected 2"), shorter.message());

    List<List<Object>> swapped = List.of(good.get(1), good.get(0));
    var order = ResultComparator.compare(swapped, expected);
    assertFalse(order.matches(), "row order is significant");
    assertTrue(order.message().contains("row 1 column 1 'flag'"), order.message());

    List<List<Object>> many = new ArrayList<>();
    List<List<String>> wanted = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      many.add(Arrays.asList("A" + i, BigDecimal.ZERO, (long) i + 1));
      wanted.add(List.of("A" + i, "0.00", Integer.toString(i)));
    }
    var lots = ResultComparator.compare(many, new ExpectedResult(1, expected.columns(), expected.precisions(), wanted));
    assertTrue(lots.message().startsWith("Q1: 10 values differ"), lots.message());
    assertTrue(lots.message().endsWith("..."), lots.message());
  }

  @Test
  void rowsTiedOnEveryOrderByKeyMayComeInAnyOrderAmongThemselves() {
    // Q11: ps_partkey, value, ordered by value desc; two parts share a value
    ExpectedResult expected = new ExpectedResult(11, List.of("ps_partkey", "value"),
        List.of(ColumnPrecision.INT, ColumnPrecision.SUM),
        List.of(List.of("7", "30.00"), List.of("670324", "20.00"), List.of("1883897", "20.00"), List.of("5", "10.00")));
    List<List<Object>> tiesSwapped = List.of(List.of(7, new BigDecimal("30.00")), List.of(1883897, new BigDecimal("20.00")),
        List.of(670324, new BigDecimal("20.00")), List.of(5, new BigDecimal("10.00")));
    assertEquals("ok", ResultComparator.compare(tiesSwapped, expected).message());

    List<List<Object>> untiedSwapped = List.of(tiesSwapped.get(1), tiesSwapped.get(0), tiesSwapped.get(2),
        tiesSwapped.get(3));
    assertFalse(ResultComparator.compare(untiedSwapped, expected).matches(), "rows of different values keep their order");

    List<List<Object>> wrongInTie = List.of(tiesSwapped.get(0), List.of(1883897, new BigDecimal("20.00")),
        List.of(1883897, new BigDecimal("20.00")), tiesSwapped.get(3));
    var twice = ResultComparator.compare(wrongInTie, expected);
    assertFalse(twice.matches(), "a tie is matched as a multiset: one row twice is not the two rows");
    assertTrue(twice.message().contains("1 values differ"), twice.message());
  }
}
