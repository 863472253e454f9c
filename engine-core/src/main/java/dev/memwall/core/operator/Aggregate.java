package dev.memwall.core.operator;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.vector.ColumnType;

/**
 * One aggregate of a grouped query: {@code function(argument) AS name}.
 *
 * <p>SQL semantics: nulls in the argument are skipped; SUM, AVG, MIN and MAX of a group with no
 * non-null value are null; COUNT(*) counts rows, COUNT(x) non-null values. SUM of integers and
 * decimals is exact (overflow throws {@link ArithmeticException}) and keeps the decimal scale;
 * AVG is a double.
 *
 * @param argument the aggregated expression; null only for COUNT(*)
 */
public record Aggregate(Function function, Expr argument, String name) {
  /** The aggregate functions. */
  public enum Function { SUM, COUNT, AVG, MIN, MAX }

  public Aggregate {
    if (argument == null && function != Function.COUNT) {
      throw new IllegalArgumentException(function + " needs an argument");
    }
  }

  public static Aggregate sum(Expr argument, String name) {
    return new Aggregate(Function.SUM, argument, name);
  }

  public static Aggregate avg(Expr argument, String name) {
    return new Aggregate(Function.AVG, argument, name);
  }

  public static Aggregate min(Expr argument, String name) {
    return new Aggregate(Function.MIN, argument, name);
  }

  public static Aggregate max(Expr argument, String name) {
    return new Aggregate(Function.MAX, argument, name);
  }

  /** COUNT(argument): non-null values. */
  public static Aggregate count(Expr argument, String name) {
    return new Aggregate(Function.COUNT, argument, name);
  }

  /** COUNT(*): rows. */
  public static Aggregate countStar(String name) {
    return new Aggregate(Function.COUNT, null, name);
  }

  /**
   * The type of the result for an argument of {@code argumentType} (null for COUNT(*)): COUNT is
   * INT64, AVG FLOAT64, SUM of INT32 INT64, otherwise the argument's type.
   */
  public ColumnType resultType(ColumnType argumentType) {
    return switch (function) {
      case COUNT -> ColumnType.INT64;
      case AVG -> ColumnType.FLOAT64;
      case SUM -> argumentType.kind() == ColumnType.Kind.INT32 ? ColumnType.INT64 : argumentType;
      case MIN, MAX -> argumentType;
    };
  }
}
