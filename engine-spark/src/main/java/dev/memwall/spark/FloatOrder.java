package dev.memwall.spark;

import dev.memwall.core.expr.Expr;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.optimizer.NormalizeNaNAndZero;
import org.apache.spark.sql.catalyst.expressions.KnownFloatingPointNormalized;
import org.apache.spark.sql.types.DataTypes;

/**
 * Spark's semantics of doubles written with memwall's IEEE 754 expressions. Spark orders NaN above every
 * number (and +Infinity), equals NaN to NaN and -0.0 to 0.0, and groups -0.0 with 0.0 and every NaN together;
 * memwall's comparisons follow IEEE 754 (NaN compares false with everything, itself included; -0.0 equals
 * 0.0), its MIN and MAX are {@link Math#min} and {@link Math#max} (NaN when any value is NaN), and it groups
 * doubles as Spark does. What differs is rewritten here over the IEEE test {@code x <> x} (true exactly for
 * a NaN, null for a null): {@link #isNaN}, {@link #nanAsInfinity} and {@link #isNumber} for Spark's MIN,
 * {@link #compare} for Spark's comparisons with a literal.
 *
 * <p>Every rewrite keeps SQL's nulls: a null input gives a null comparison, and MIN ignores it.
 * Thread safety: stateless.
 */
final class FloatOrder {
  private FloatOrder() {}

  /** Whether Spark computes {@code expression} as a floating-point value. */
  static boolean isFloating(Expression expression) {
    return DataTypes.DoubleType.equals(expression.dataType()) || DataTypes.FloatType.equals(expression.dataType());
  }

  /**
   * A grouping key without Spark's normalization ({@code NormalizeFloatingNumbers} wraps floating-point
   * keys in {@code knownfloatingpointnormalized(normalizenanandzero(x))}): memwall groups doubles by their
   * normalized value and returns it as the group's key, which is what the normalization computes.
   */
  static Expression normalizedKey(Expression key) {
    Expression inner = key instanceof Alias alias ? alias.child() : key;
    if (inner instanceof KnownFloatingPointNormalized known) {
      inner = known.child();
    }
    return inner instanceof NormalizeNaNAndZero normalize ? normalize.child() : key;
  }

  /** Whether {@code x} is NaN: null for a null. */
  static Expr isNaN(Expr x) {
    return x.ne(x);
  }

  /** {@code x} with NaN replaced by +Infinity (null stays null): the MIN of it ignores NaN as Spark's does. */
  static Expr nanAsInfinity(Expr x) {
    return Expr.caseWhen(isNaN(x), Expr.lit(Double.POSITIVE_INFINITY), x);
  }

  /** 1 where {@code x} is a number (not NaN, not null), else 0: a group's sum of it says whether MIN is NaN. */
  static Expr isNumber(Expr x) {
    return Expr.caseWhen(x.eq(x), Expr.lit(1), Expr.lit(0));
  }

  /**
   * Spark's {@code x op value} for a double column {@code x} and a non-null double literal, with three-valued
   * logic (null for a null {@code x}): against NaN, NaN equals NaN and is above every number; against a
   * number, a NaN {@code x} is above it (IEEE's {@code <}, {@code <=}, {@code =} and {@code <>} already agree).
   *
   * @param op one of {@code =, <>, <, <=, >, >=}, with {@code x} on the left
   */
  static Expr compare(String op, Expr x, double value) {
    if (Double.isNaN(value)) {
      Expr number = x.eq(x); // x is not NaN
      return switch (op) {
        case "=", ">=" -> isNaN(x);
        case "<>", "<" -> number;
        case "<=" -> Expr.or(number, isNaN(x)); // true but for null
        case ">" -> Expr.and(number, isNaN(x)); // false but for null
        default -> throw new IllegalArgumentException("not a comparison: " + op);
      };
    }
    Expr literal = Expr.lit(value);
    return switch (op) {
      case "=" -> x.eq(literal);
      case "<>" -> x.ne(literal);
      case "<" -> x.lt(literal);
      case "<=" -> x.le(literal);
      case ">" -> Expr.or(x.gt(literal), isNaN(x));
      case ">=" -> Expr.or(x.ge(literal), isNaN(x));
      default -> throw new IllegalArgumentException("not a comparison: " + op);
    };
  }
}
