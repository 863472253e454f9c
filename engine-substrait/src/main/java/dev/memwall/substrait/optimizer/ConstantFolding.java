package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.vector.ColumnType;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Exact arithmetic on literals done once while planning instead of once per row: SQL text such as
 * {@code l_discount between 0.06 - 0.01 and 0.06 + 0.01} or {@code 1 - l_discount} arrives as
 * arithmetic and casts of literals. A comparison of a column with a literal is what the binder turns
 * into a range test on the column's memory; with arithmetic on the other side it is a general
 * comparison computed per chunk.
 *
 * <p>Folded: {@code +}, {@code -} and {@code *} of two INT32, INT64 or DECIMAL literals, and a cast
 * of such a literal to INT32, INT64 or DECIMAL, by the binder's rules (integers compute as INT64; a
 * decimal sum has the larger scale, a product the sum of the scales; a cast to a smaller scale
 * rounds half away from zero). A result the binder would refuse or that overflows (a scale above 18,
 * an operand aligned to the larger scale or the result beyond int64, or beyond INT32 for a cast to
 * it) is left unfolded, so that running it fails as it
 * would have. Everything else is returned as it is: division (computed in double), dates, doubles,
 * and anything reading a column. Stateless and thread-safe.
 */
public final class ConstantFolding {
  private ConstantFolding() {}

  /**
   * {@code expr} with its outermost node folded when it is arithmetic or a cast of literals; its
   * operands are taken as already folded (an expression built bottom-up folds as it goes).
   */
  public static Expr fold(Expr expr) {
    return switch (expr) {
      case Expr.Arithmetic a when a.left() instanceof Expr.Literal left && a.right() instanceof Expr.Literal right
          && exact(left) && exact(right) -> arithmetic(a, left, right);
      case Expr.Cast cast when cast.input() instanceof Expr.Literal literal && exact(literal)
          && exact(cast.type()) -> cast(cast, literal);
      default -> expr;
    };
  }

  private static boolean exact(Expr.Literal literal) {
    return literal.value() instanceof Long && exact(literal.type());
  }

  private static boolean exact(ColumnType type) {
    return type.kind() == ColumnType.Kind.INT32 || type.kind() == ColumnType.Kind.INT64
        || type.kind() == ColumnType.Kind.DECIMAL;
  }

  private static Expr arithmetic(Expr.Arithmetic a, Expr.Literal left, Expr.Literal right) {
    BigDecimal x = value(left);
    BigDecimal y = value(right);
    int scale;
    BigDecimal result;
    switch (a.op()) {
      case ADD, SUB -> {
        scale = Math.max(x.scale(), y.scale());
        if (!fits(x.setScale(scale)) || !fits(y.setScale(scale))) {
          return a; // the binder aligns both operands to the larger scale first, which overflows
        }
        result = a.op() == Expr.ArithmeticOp.ADD ? x.add(y) : x.subtract(y);
      }
      case MUL -> {
        scale = x.scale() + y.scale();
        result = x.multiply(y);
      }
      default -> {
        return a; // division computes in double
      }
    }
    if (scale > 18) {
      return a; // the binder refuses it
    }
    boolean decimal = left.type().kind() == ColumnType.Kind.DECIMAL || right.type().kind() == ColumnType.Kind.DECIMAL;
    return literal(result.setScale(scale), decimal ? ColumnType.decimal(scale) : ColumnType.INT64, a);
  }

  private static Expr cast(Expr.Cast cast, Expr.Literal literal) {
    ColumnType to = cast.type();
    BigDecimal value = value(literal).setScale(to.scale(), RoundingMode.HALF_UP);
    if (to.kind() == ColumnType.Kind.INT32) {
      long unscaled = value.unscaledValue().bitLength() > 63 ? Long.MAX_VALUE : value.unscaledValue().longValue();
      if (unscaled != (int) unscaled) {
        return cast;
      }
    }
    return literal(value, to, cast);
  }

  /** A literal's value with the scale of its type (an integer has scale 0). */
  private static BigDecimal value(Expr.Literal literal) {
    return BigDecimal.valueOf((Long) literal.value(), literal.type().scale());
  }

  /** {@code value} (at {@code type}'s scale) as a literal, or {@code unfolded} when it is beyond int64. */
  private static Expr literal(BigDecimal value, ColumnType type, Expr unfolded) {
    return fits(value) ? new Expr.Literal(value.unscaledValue().longValue(), type) : unfolded;
  }

  /** Whether {@code value}'s unscaled value is an int64. */
  private static boolean fits(BigDecimal value) {
    return value.unscaledValue().bitLength() <= 63;
  }
}
