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
   * INT64, AVG FLOAT64, SUM of INT32 INT64, otherwise the argument's type. Nothing is allocated, so
   * a plan can be checked with this before it runs.
   *
   * @throws IllegalArgumentException in one line naming this aggregate, its argument and the
   *     argument's type when the function does not take that type: SUM and AVG take numbers (INT32,
   *     INT64, DECIMAL, FLOAT64; AVG also DATE), MIN and MAX anything but strings, COUNT any type
   */
  public ColumnType resultType(ColumnType argumentType) {
    if (argumentType != null && function != Function.COUNT && !takes(argumentType.kind())) {
      throw new IllegalArgumentException("cannot compute " + this + ": its argument " + describe(argument)
          + " is " + argumentType + ", and " + function + " takes " + switch (function) {
            case SUM -> "INT32, INT64, DECIMAL or FLOAT64";
            case AVG -> "INT32, INT64, DECIMAL, FLOAT64 or DATE";
            default -> "INT32, INT64, DECIMAL, FLOAT64, DATE, TIMESTAMP or BOOLEAN";
          });
    }
    return switch (function) {
      case COUNT -> ColumnType.INT64;
      case AVG -> ColumnType.FLOAT64;
      case SUM -> argumentType.kind() == ColumnType.Kind.INT32 ? ColumnType.INT64 : argumentType;
      case MIN, MAX -> argumentType;
    };
  }

  /** Whether this (non-COUNT) function takes arguments of {@code kind}. */
  private boolean takes(ColumnType.Kind kind) {
    return switch (function) {
      case SUM -> kind != ColumnType.Kind.STRING && kind != ColumnType.Kind.DATE && kind != ColumnType.Kind.BOOLEAN
          && kind != ColumnType.Kind.TIMESTAMP;
      case AVG -> kind != ColumnType.Kind.STRING && kind != ColumnType.Kind.BOOLEAN && kind != ColumnType.Kind.TIMESTAMP;
      default -> kind != ColumnType.Kind.STRING;
    };
  }

  /** {@code SUM(price) AS revenue}: the function, its argument (a column by its name) and the result's name. */
  @Override
  public String toString() {
    return function + "(" + (argument == null ? "*" : describe(argument)) + ") AS " + name;
  }

  private static String describe(Expr expr) {
    return expr instanceof Expr.ColumnRef ref ? ref.name() : expr.toString();
  }
}
