package dev.memwall.tpch.verify;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * How one output column of a TPC-H query is compared with the query validation output, one token
 * of {@code colprecision.txt} each. The rules are those of the TPC-H specification, clause 2.1.3.5
 * (the precision of all values contained in the query validation output data), which the
 * {@code cmpq} answer checker of the TPC-H tools applies per column:
 *
 * <ul>
 *   <li>{@link #STR}, {@link #INT}, {@link #NUM}: singleton column values must exactly match (2.1.3.5 a);
 *   <li>{@link #CNT}: results of COUNT aggregates must exactly match (2.1.3.5 a);
 *   <li>{@link #RAT}: ratios r must satisfy {@code 0.99*v <= round(r,2) <= 1.01*v} (2.1.3.5 b);
 *   <li>{@link #SUM}: results of SUM aggregates must be within $100 of v (2.1.3.5 c);
 *   <li>{@link #AVG}: results of AVG aggregates r must satisfy {@code 0.99*v <= round(r,2) <= 1.01*v}
 *       (2.1.3.5 d).
 * </ul>
 *
 * <p>Thread safety: stateless. Bad input: an expected value that is not a number where one is
 * needed, or an actual value of the wrong kind, simply does not match (with a reason).
 */
public enum ColumnPrecision {
  /**
   * A string (also dates and other non-numeric singletons): equal after stripping leading and
   * trailing blanks (2.1.3.4 e allows them), case-sensitive. Dates compare in ISO form YYYY-MM-DD.
   */
  STR,
  /** An integer singleton value: numerically equal, no tolerance (2.1.3.5 a). */
  INT,
  /**
   * A non-integer singleton value (a price, a balance): exactly equal to the validation output as
   * printed there, i.e. the actual value rounded half-up to the expected value's number of decimals
   * (two) must equal it; no other tolerance (2.1.3.5 a).
   */
  NUM,
  /** A SUM aggregate: {@code |r - v| <= 100} (within $100, 2.1.3.5 c). */
  SUM,
  /**
   * An AVG aggregate: rounded half-up to two decimals, within 1% of v:
   * {@code |round(r,2) - v| <= 0.01*|v|}, i.e. {@code 0.99*v <= round(r,2) <= 1.01*v} for v >= 0 (2.1.3.5 d).
   */
  AVG,
  /** A COUNT aggregate: exactly equal (2.1.3.5 a). */
  CNT,
  /**
   * A ratio (a percentage, a share): rounded half-up to two decimals, within 1% of v, as for
   * {@link #AVG} (2.1.3.5 b).
   */
  RAT;

  private static final BigDecimal SUM_TOLERANCE = BigDecimal.valueOf(100);
  private static final BigDecimal ONE_PERCENT = new BigDecimal("0.01");

  /**
   * The token of {@code colprecision.txt} ({@code str int num sum avg cnt rat}).
   *
   * @throws IllegalArgumentException for any other token
   */
  public static ColumnPrecision ofToken(String token) {
    return switch (token.strip()) {
      case "str" -> STR;
      case "int" -> INT;
      case "num" -> NUM;
      case "sum" -> SUM;
      case "avg" -> AVG;
      case "cnt" -> CNT;
      case "rat" -> RAT;
      default -> throw new IllegalArgumentException("unknown column precision token '" + token
          + "' (expected one of str int num sum avg cnt rat)");
    };
  }

  private static final java.util.List<java.util.List<ColumnPrecision>> BUILT_IN = builtIn();

  /**
   * The rules of query {@code query}'s output columns as listed in the official
   * {@code colprecision.txt} (a copy ships as a resource, so DuckDB verification works without the
   * answers directory).
   *
   * @throws IllegalArgumentException unless query is 1..22
   */
  public static java.util.List<ColumnPrecision> forQuery(int query) {
    if (query < 1 || query > 22) {
      throw new IllegalArgumentException("TPC-H queries are numbered 1 to 22, not " + query);
    }
    return BUILT_IN.get(query - 1);
  }

  private static java.util.List<java.util.List<ColumnPrecision>> builtIn() {
    String resource = "/dev/memwall/tpch/verify/colprecision.txt";
    try (var in = ColumnPrecision.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines()
          .filter(line -> !line.isBlank())
          .map(line -> java.util.Arrays.stream(line.strip().split("\\s+")).map(ColumnPrecision::ofToken).toList())
          .toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The token as in {@code colprecision.txt}. */
  public String token() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Why {@code actual} does not match {@code expected} under this rule, or null when it matches. An
   * expected {@code NULL} (SQL null, as {@link ResultComparator#expectedFrom} prints it) matches only a
   * null, and a null matches only an expected {@code NULL}.
   *
   * @param expected the validation output's text (blanks around it are ignored)
   * @param actual a String, Number (Integer, Long, BigDecimal, Double), LocalDate or java.sql.Date
   */
  public String mismatch(String expected, Object actual) {
    String want = expected.strip();
    boolean expectsNull = want.equals("NULL");
    if (actual == null) {
      return expectsNull ? null : "got NULL";
    }
    if (expectsNull && this != STR) {
      return "expected NULL";
    }
    if (this == STR) {
      String got = text(actual).strip();
      return got.equals(want) ? null : "strings differ";
    }
    BigDecimal v;
    BigDecimal r;
    try {
      v = new BigDecimal(want);
    } catch (NumberFormatException e) {
      return "expected value '" + want + "' is not a number";
    }
    r = number(actual);
    if (r == null) {
      return "got a non-number";
    }
    return switch (this) {
      case INT, CNT -> r.compareTo(v) == 0 ? null : "not exactly equal";
      case NUM -> r.setScale(Math.max(v.scale(), 0), RoundingMode.HALF_UP).compareTo(v) == 0 ? null
          : "not equal at " + Math.max(v.scale(), 0) + " decimals";
      case SUM -> r.subtract(v).abs().compareTo(SUM_TOLERANCE) <= 0 ? null : "off by more than 100";
      case AVG, RAT -> r.setScale(2, RoundingMode.HALF_UP).subtract(v).abs()
          .compareTo(v.abs().multiply(ONE_PERCENT)) <= 0 ? null : "rounded to 2 decimals, off by more than 1%";
      case STR -> throw new AssertionError();
    };
  }

  static String text(Object value) {
    return switch (value) {
      case java.sql.Date date -> date.toLocalDate().toString();
      case BigDecimal decimal -> decimal.toPlainString();
      default -> value.toString();
    };
  }

  static BigDecimal number(Object value) {
    return switch (value) {
      case BigDecimal decimal -> decimal;
      case Integer i -> BigDecimal.valueOf(i);
      case Long l -> BigDecimal.valueOf(l);
      case Short s -> BigDecimal.valueOf(s);
      case Byte b -> BigDecimal.valueOf(b);
      case java.math.BigInteger big -> new BigDecimal(big);
      case Double d when Double.isFinite(d) -> new BigDecimal(d);
      case Float f when Float.isFinite(f) -> new BigDecimal(f);
      case String s -> {
        try {
          yield new BigDecimal(s.strip());
        } catch (NumberFormatException e) {
          yield null;
        }
      }
      default -> null;
    };
  }
}
