package dev.memwall.tpch.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.tpch.verify.DuckDbOracle;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class TpchParametersTest {
  private static final Map<String, String> NATION_REGIONS = Map.ofEntries(Map.entry("ALGERIA", "AFRICA"),
      Map.entry("BRAZIL", "AMERICA"), Map.entry("CANADA", "AMERICA"), Map.entry("CHINA", "ASIA"),
      Map.entry("FRANCE", "EUROPE"), Map.entry("EGYPT", "MIDDLE EAST"), Map.entry("JAPAN", "ASIA"));

  @Test
  void validationParametersReproduceTheQueryTextsOfIoTrinoTpch() throws IOException {
    for (int query = 1; query <= 22; query++) {
      String ours = withoutComments(DuckDbOracle.tpchSql(TpchParameters.validation(query, 1)));
      String reference;
      try (InputStream in = getClass().getResourceAsStream("/io/trino/tpch/queries/q" + query + ".sql")) {
        reference = duckDbDialect(withoutComments(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
      }
      if (query == 15) { // Trino's text creates a view, the DuckDB text uses a WITH clause instead
        assertEquals(2, ours.split("DATE '1996-01-01'", -1).length - 1, ours);
      } else {
        assertEquals(reference, ours, "Q" + query);
      }
    }
  }

  /**
   * Trino's typed literals as the DuckDB texts write them ({@code decimal '0.06'} and
   * {@code date('1994-01-01')}), and Q11's alias {@code value} renamed {@code total_value}, as its
   * template does because Calcite's grammar reserves the word and Spark reads a quoted one as a string.
   */
  private static String duckDbDialect(String trinoSql) {
    return trinoSql.replaceAll("decimal '([0-9.]+)'", "$1").replaceAll("date\\('([0-9-]+)'\\)", "DATE '$1'")
        .replaceAll("(?m)(AS |^\\s*)value(?= DESC|$)", "$1total_value");
  }

  @Test
  void fractionOfQ11ScalesWithTheScaleFactor() {
    assertEquals(new BigDecimal("0.0001"), TpchParameters.validation(11, 1).decimal("FRACTION"));
    assertEquals(new BigDecimal("0.01"), TpchParameters.validation(11, 0.01).decimal("FRACTION"));
    assertEquals(new BigDecimal("0.00001"), TpchParameters.random(11, 10, 3).decimal("FRACTION"));
  }

  @Property(tries = 200)
  void randomParametersStayInTheSpecificationsDomains(@ForAll long seed) {
    assertInRange(TpchParameters.random(1, 1, seed).integer("DELTA"), 60, 120);
    QueryParameters q3 = TpchParameters.random(3, 1, seed);
    assertEquals(LocalDate.of(1995, 3, 1).withDayOfMonth(q3.date("DATE").getDayOfMonth()), q3.date("DATE"));
    for (int query : List.of(4, 15)) {
      LocalDate date = TpchParameters.random(query, 1, seed).date("DATE");
      assertEquals(1, date.getDayOfMonth());
      assertTrue(!date.isBefore(LocalDate.of(1993, 1, 1)) && !date.isAfter(LocalDate.of(1997, 10, 1)), date.toString());
    }
    QueryParameters q6 = TpchParameters.random(6, 1, seed);
    assertEquals(1, q6.date("DATE").getDayOfYear());
    assertInRange(q6.date("DATE").getYear(), 1993, 1997);
    assertInRange(q6.decimal("DISCOUNT").movePointRight(2).intValueExact(), 2, 9);
    assertInRange(q6.integer("QUANTITY"), 24, 25);
    QueryParameters q7 = TpchParameters.random(7, 1, seed);
    assertNotEquals(q7.text("NATION1"), q7.text("NATION2"));
    QueryParameters q8 = TpchParameters.random(8, 1, seed);
    String region = NATION_REGIONS.get(q8.text("NATION"));
    assertTrue(region == null || region.equals(q8.text("REGION")), q8.toString());
    assertEquals(3, q8.text("TYPE").split(" ").length);
    LocalDate q10 = TpchParameters.random(10, 1, seed).date("DATE");
    assertTrue(!q10.isBefore(LocalDate.of(1993, 2, 1)) && !q10.isAfter(LocalDate.of(1995, 1, 1)), q10.toString());
    QueryParameters q12 = TpchParameters.random(12, 1, seed);
    assertNotEquals(q12.text("SHIPMODE1"), q12.text("SHIPMODE2"));
    QueryParameters q16 = TpchParameters.random(16, 1, seed);
    List<Integer> sizes = q16.list("SIZES", Integer.class);
    assertEquals(8, new HashSet<>(sizes).size());
    sizes.forEach(size -> assertInRange(size, 1, 50));
    assertTrue(q16.text("BRAND").matches("Brand#[1-5][1-5]"), q16.text("BRAND"));
    assertEquals(2, q16.text("TYPE").split(" ").length);
    assertInRange(TpchParameters.random(18, 1, seed).integer("QUANTITY"), 312, 315);
    QueryParameters q19 = TpchParameters.random(19, 1, seed);
    assertInRange(q19.integer("QUANTITY1"), 1, 10);
    assertInRange(q19.integer("QUANTITY2"), 10, 20);
    assertInRange(q19.integer("QUANTITY3"), 20, 30);
    List<String> codes = TpchParameters.random(22, 1, seed).list("CODES", String.class);
    assertEquals(7, new HashSet<>(codes).size());
    codes.forEach(code -> assertInRange(Integer.parseInt(code), 10, 34));
  }

  @Property(tries = 50)
  void everyTemplateIsFilledAndTheSameSeedGivesTheSameParameters(@ForAll @IntRange(min = 1, max = 22) int query,
      @ForAll long seed) {
    QueryParameters parameters = TpchParameters.random(query, 0.1, seed);
    assertEquals(parameters, TpchParameters.random(query, 0.1, seed));
    String sql = DuckDbOracle.tpchSql(parameters);
    assertFalse(sql.contains("{") || sql.contains("}"), sql);
  }

  @Test
  void seedsDiffer() {
    long distinct = java.util.stream.LongStream.range(0, 20)
        .mapToObj(seed -> TpchParameters.random(16, 1, seed)).distinct().count();
    assertTrue(distinct > 15, "20 seeds gave only " + distinct + " different Q16 parameter sets");
  }

  @Test
  void badInputIsNamed() {
    assertThrows(IllegalArgumentException.class, () -> TpchParameters.validation(23, 1));
    assertThrows(IllegalArgumentException.class, () -> TpchParameters.random(0, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> TpchParameters.random(1, 0, 1));
    QueryParameters q6 = TpchParameters.validation(6, 1);
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> q6.text("REGION"));
    assertTrue(missing.getMessage().contains("Q6 has no parameter REGION"), missing.getMessage());
    IllegalArgumentException wrongType = assertThrows(IllegalArgumentException.class, () -> q6.text("DATE"));
    assertTrue(wrongType.getMessage().contains("LocalDate"), wrongType.getMessage());
    assertThrows(IllegalArgumentException.class, () -> q6.substitute("select {NOPE}"));
    assertEquals("x IN ('it''s', 'b') AND y = 3",
        new QueryParameters(22, Map.of("CODES", List.of("it's", "b"), "Y", 3)).substitute("x IN ({CODES}) AND y = {Y}"));
  }

  private static void assertInRange(int value, int low, int high) {
    assertTrue(value >= low && value <= high, value + " not in [" + low + ", " + high + "]");
  }

  private static String withoutComments(String sql) {
    return sql.lines().filter(line -> !line.strip().startsWith("--")).collect(Collectors.joining("\n")).strip();
  }
}
