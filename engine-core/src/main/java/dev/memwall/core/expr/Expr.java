package dev.memwall.core.expr;

import dev.memwall.core.vector.ColumnType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.types.TimeUnit;

/**
 * A scalar or boolean expression over the columns of a batch: the language of filters,
 * projections, grouping keys and aggregate arguments.
 *
 * <p>Expressions are immutable trees built with the static factories and fluent methods here,
 * for example {@code col("l_extendedprice").mul(lit(1).sub(col("l_discount")))} or
 * {@code col("l_shipdate").between(date("1994-01-01"), date("1994-12-31"))}. A {@link Binder}
 * type-checks a tree against a schema and compiles it into vectorized kernels.
 *
 * <p>Types follow SQL, and {@link Binder} documents the implicit promotions in full: integers
 * (INT32 widened to INT64), dates, timestamps and decimals (scaled int64) compute exactly, decimal
 * scales align for addition and comparison and add up for multiplication, and an integer meeting a
 * decimal is a decimal of scale 0; division and anything involving a double yields a double (a
 * decimal becomes the nearest double). Anything else is asked for with {@link #cast}. A null input
 * makes arithmetic null and a comparison NULL (unknown); predicates follow SQL's three-valued
 * logic, and a filter keeps only TRUE rows. A BOOLEAN column is itself a predicate.
 */
public sealed interface Expr {

  /** A column of the input, by name. */
  record ColumnRef(String name) implements Expr {}

  /**
   * A constant: {@code value} is a Long (unscaled, for integral types and decimals), a Double, or
   * a String.
   */
  record Literal(Object value, ColumnType type) implements Expr {}

  /** {@code left op right}. */
  record Arithmetic(ArithmeticOp op, Expr left, Expr right) implements Expr {}

  /** {@code left op right}: TRUE, FALSE, or NULL when either side is null. */
  record Comparison(ComparisonOp op, Expr left, Expr right) implements Expr {}

  /** True when every operand is. */
  record And(List<Expr> operands) implements Expr {}

  /** True when any operand is. */
  record Or(List<Expr> operands) implements Expr {}

  /** True when the operand is false (rows where it is null stay unselected). */
  record Not(Expr operand) implements Expr {}

  /** SQL {@code LIKE} on a string: {@code %} matches any run of characters, {@code _} one. */
  record Like(Expr input, String pattern) implements Expr {}

  /** {@code input IN (values...)} against literal values. */
  record InList(Expr input, List<Literal> values) implements Expr {}

  /** {@code input IS NULL} for a column {@code input}: TRUE or FALSE, never NULL. */
  record IsNull(Expr input) implements Expr {}

  /** {@code CASE WHEN condition THEN then ELSE otherwise END}. */
  record Case(Expr condition, Expr then, Expr otherwise) implements Expr {}

  /** {@code EXTRACT(YEAR FROM date)} of a DATE or a TIMESTAMP (a zoned one's year in its zone). */
  record ExtractYear(Expr date) implements Expr {}

  /**
   * {@code CAST(input AS type)}: the value of {@code input} as a {@code type}, exactly or not at
   * all. {@link Binder} checks the pair when it binds (refusing the casts it lacks in one line) and
   * documents what each does: integers and decimals widen exactly (an unscaled value that overflows
   * int64 fails the query with an {@link ArithmeticException}), a narrower decimal scale rounds half
   * away from zero, numbers become the nearest double, dates and timestamps convert by their units
   * and zones. Null stays null.
   */
  record Cast(Expr input, ColumnType type) implements Expr {
    public Cast {
      java.util.Objects.requireNonNull(input, "input");
      java.util.Objects.requireNonNull(type, "type");
    }
  }

  /**
   * SQL {@code SUBSTRING(input FROM start FOR length)} of a string column: the code points
   * {@code start} (1-based) to {@code start + length - 1}, clipped to the string (so a string
   * shorter than {@code start} yields the empty string); null stays null. Usable wherever a string
   * column is: in LIKE, IN and comparisons with constants, and as a projected output.
   *
   * @throws IllegalArgumentException when {@code start < 1} or {@code length < 0}
   */
  record Substring(Expr input, int start, int length) implements Expr {
    public Substring {
      if (start < 1 || length < 0) {
        throw new IllegalArgumentException("SUBSTRING needs start >= 1 and length >= 0, got start " + start
            + " and length " + length);
      }
    }

    /**
     * The byte range of this substring within the UTF-8 string at bytes {@code [offset, offset +
     * byteLength)}: the first byte's offset in the high 32 bits (relative to {@code offset}), the
     * byte count in the low 32 bits.
     */
    public long byteRange(MemorySegment bytes, long offset, int byteLength) {
      int from = skipCodePoints(bytes, offset, byteLength, 0, start - 1);
      int to = skipCodePoints(bytes, offset, byteLength, from, length);
      return ((long) from << 32) | (to - from);
    }

    private static int skipCodePoints(MemorySegment bytes, long offset, int byteLength, int at, int count) {
      int position = at;
      for (int i = 0; i < count && position < byteLength; i++) {
        position++;
        while (position < byteLength && (bytes.get(ValueLayout.JAVA_BYTE, offset + position) & 0xC0) == 0x80) {
          position++;
        }
      }
      return position;
    }
  }

  /** The four arithmetic operators. */
  enum ArithmeticOp { ADD, SUB, MUL, DIV }

  /** The six comparison operators. */
  enum ComparisonOp { EQ, NE, LT, LE, GT, GE }

  // ---- factories ----

  static Expr col(String name) {
    return new ColumnRef(name);
  }

  /** An INT64 constant. */
  static Literal lit(long value) {
    return new Literal(value, ColumnType.INT64);
  }

  /** A FLOAT64 constant. */
  static Literal lit(double value) {
    return new Literal(value, ColumnType.FLOAT64);
  }

  /** A string constant. */
  static Literal lit(String value) {
    return new Literal(value, ColumnType.STRING);
  }

  /** A BOOLEAN constant (held as 1 or 0). */
  static Literal lit(boolean value) {
    return new Literal(value ? 1L : 0L, ColumnType.BOOLEAN);
  }

  /** An exact decimal constant such as {@code "0.06"}; its scale is the digits written. */
  static Literal decimal(String value) {
    return decimal(new BigDecimal(value));
  }

  /** An exact decimal constant; its scale is the value's (at least 0). */
  static Literal decimal(BigDecimal exact) {
    int scale = Math.max(0, exact.scale());
    return new Literal(exact.setScale(scale).unscaledValue().longValueExact(), ColumnType.decimal(scale));
  }

  /** A DATE constant from ISO text, {@code "1998-12-01"}. */
  static Literal date(String isoDate) {
    return date(LocalDate.parse(isoDate));
  }

  static Literal date(LocalDate date) {
    return new Literal(date.toEpochDay(), ColumnType.DATE);
  }

  /**
   * A TIMESTAMP constant from ISO text: {@code "1998-12-01T10:15:30.25"} is a wall-clock time (a
   * timestamp without a zone); with an offset or {@code Z} ({@code "1998-12-01T10:15:30Z"},
   * {@code "...+02:00"}) it is an instant, a timestamp in zone UTC. Its unit is the coarsest that
   * holds it exactly (seconds, then milli-, micro-, nanoseconds), which compares with a column of
   * any unit exactly.
   *
   * @throws java.time.format.DateTimeParseException for text that is neither
   */
  static Literal timestamp(String iso) {
    try {
      return timestamp(LocalDateTime.parse(iso));
    } catch (DateTimeParseException notLocal) {
      return timestamp(OffsetDateTime.parse(iso).toInstant());
    }
  }

  /** A TIMESTAMP constant without a zone (a wall-clock time), in the coarsest unit that holds it. */
  static Literal timestamp(LocalDateTime time) {
    return timestamp(time.toInstant(ZoneOffset.UTC), null);
  }

  /** A TIMESTAMP constant in zone UTC (an instant), in the coarsest unit that holds it. */
  static Literal timestamp(Instant instant) {
    return timestamp(instant, "UTC");
  }

  private static Literal timestamp(Instant instant, String zone) {
    int nanos = instant.getNano();
    TimeUnit unit = nanos == 0 ? TimeUnit.SECOND : nanos % 1_000_000 == 0 ? TimeUnit.MILLISECOND
        : nanos % 1_000 == 0 ? TimeUnit.MICROSECOND : TimeUnit.NANOSECOND;
    ColumnType type = ColumnType.timestamp(unit, zone);
    long perSecond = Binder.pow10(type.scale());
    long value = Math.addExact(Math.multiplyExact(instant.getEpochSecond(), perSecond),
        nanos / (1_000_000_000L / perSecond));
    return new Literal(value, type);
  }

  /** {@code CAST(input AS type)}; see {@link Cast}. */
  static Expr cast(Expr input, ColumnType type) {
    return new Cast(input, type);
  }

  static Expr and(Expr... operands) {
    return new And(List.of(operands));
  }

  static Expr or(Expr... operands) {
    return new Or(List.of(operands));
  }

  static Expr not(Expr operand) {
    return new Not(operand);
  }

  static Expr caseWhen(Expr condition, Expr then, Expr otherwise) {
    return new Case(condition, then, otherwise);
  }

  static Expr isNull(Expr column) {
    return new IsNull(column);
  }

  /** {@code COALESCE(column, fallback)}: {@code CASE WHEN column IS NULL THEN fallback ELSE column END}. */
  static Expr coalesce(Expr column, Expr fallback) {
    return caseWhen(isNull(column), fallback, column);
  }

  static Expr year(Expr date) {
    return new ExtractYear(date);
  }

  /** {@code SUBSTRING(input FROM start FOR length)}, 1-based in code points. */
  static Expr substring(Expr input, int start, int length) {
    return new Substring(input, start, length);
  }

  // ---- fluent operators ----

  default Expr add(Expr other) {
    return new Arithmetic(ArithmeticOp.ADD, this, other);
  }

  default Expr sub(Expr other) {
    return new Arithmetic(ArithmeticOp.SUB, this, other);
  }

  default Expr mul(Expr other) {
    return new Arithmetic(ArithmeticOp.MUL, this, other);
  }

  default Expr div(Expr other) {
    return new Arithmetic(ArithmeticOp.DIV, this, other);
  }

  default Expr eq(Expr other) {
    return new Comparison(ComparisonOp.EQ, this, other);
  }

  default Expr ne(Expr other) {
    return new Comparison(ComparisonOp.NE, this, other);
  }

  default Expr lt(Expr other) {
    return new Comparison(ComparisonOp.LT, this, other);
  }

  default Expr le(Expr other) {
    return new Comparison(ComparisonOp.LE, this, other);
  }

  default Expr gt(Expr other) {
    return new Comparison(ComparisonOp.GT, this, other);
  }

  default Expr ge(Expr other) {
    return new Comparison(ComparisonOp.GE, this, other);
  }

  /** {@code CAST(this AS type)}; see {@link Cast}. */
  default Expr cast(ColumnType type) {
    return new Cast(this, type);
  }

  /** This expression as output column {@code name}. */
  default NamedExpr as(String name) {
    return new NamedExpr(this, name);
  }

  /** {@code low <= this AND this <= high}. */
  default Expr between(Expr low, Expr high) {
    return and(ge(low), le(high));
  }

  default Expr like(String pattern) {
    return new Like(this, pattern);
  }

  default Expr in(Literal... values) {
    return new InList(this, Arrays.asList(values));
  }
}
