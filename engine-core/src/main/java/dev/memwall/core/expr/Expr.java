package dev.memwall.core.expr;

import dev.memwall.core.vector.ColumnType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;

/**
 * A scalar or boolean expression over the columns of a batch: the language of filters,
 * projections, grouping keys and aggregate arguments.
 *
 * <p>Expressions are immutable trees built with the static factories and fluent methods here,
 * for example {@code col("l_extendedprice").mul(lit(1).sub(col("l_discount")))} or
 * {@code col("l_shipdate").between(date("1994-01-01"), date("1994-12-31"))}. A {@link Binder}
 * type-checks a tree against a schema and compiles it into vectorized kernels.
 *
 * <p>Types follow SQL: integers, dates and decimals (scaled int64) compute exactly, decimal
 * scales align for addition and comparison and add up for multiplication; division and anything
 * involving a double yields a double. A null input makes arithmetic null and a comparison NULL
 * (unknown); predicates follow SQL's three-valued logic, and a filter keeps only TRUE rows.
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

  /** {@code EXTRACT(YEAR FROM date)}. */
  record ExtractYear(Expr date) implements Expr {}

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
