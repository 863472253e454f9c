package dev.memwall.spark;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.vector.ColumnType;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.Add;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Multiply;
import org.apache.spark.sql.catalyst.expressions.Subtract;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Translates the Catalyst expressions of an aggregation (its grouping keys and the arguments of its
 * aggregate functions) into memwall expressions that compute the same values, or says why not.
 *
 * <p>Translated: columns of the scan; non-null literals of int, bigint, double, date, decimal and
 * string; {@code +}, {@code -} and {@code *}; casts that change nothing memwall computes (a decimal to a
 * wider precision of the same scale, int to bigint). After each step the memwall type of the result is
 * checked against Spark's: the same kind and, for decimals, the same scale (Spark lowers the scale of a
 * product beyond 38 digits; memwall keeps it, and such a product is left to Spark). Not translated:
 * division (Spark's is decimal, memwall's double), other casts, functions, conditionals.
 *
 * <p>Integer arithmetic: memwall computes in int64 and throws on overflow; Spark's int arithmetic wraps
 * (or throws in ANSI mode). Decimal arithmetic: both exact, memwall within int64 (overflow throws).
 *
 * <p>Thread safety: immutable (the binder it holds is only used for typing).
 */
final class CatalystTranslator {
  /** Why an expression (or a pushed predicate, {@link PredicateTranslator}) is not translated. */
  static final class Untranslatable extends Exception {
    Untranslatable(String reason) {
      super(reason, null, false, false);
    }
  }

  private final Binder binder;
  private final Set<String> columns;

  /**
   * @param binder types memwall expressions over the scanned table's schema
   * @param columns the names of the scan's columns
   */
  CatalystTranslator(Binder binder, Set<String> columns) {
    this.binder = binder;
    this.columns = columns;
  }

  /** The memwall expression computing {@code expression}. */
  Expr translate(Expression expression) throws Untranslatable {
    Expr result = switch (expression) {
      case AttributeReference attribute -> {
        if (!columns.contains(attribute.name())) {
          throw new Untranslatable("column " + attribute.name() + " is not read by the memwall scan");
        }
        yield Expr.col(attribute.name());
      }
      case Alias alias -> translate(alias.child());
      case Literal literal -> literal(literal);
      case Add add -> translate(add.left()).add(translate(add.right()));
      case Subtract subtract -> translate(subtract.left()).sub(translate(subtract.right()));
      case Multiply multiply -> translate(multiply.left()).mul(translate(multiply.right()));
      case Cast cast -> cast(cast);
      default -> throw new Untranslatable("memwall does not compute " + expression.prettyName() + " ("
          + expression.sql() + ")");
    };
    ColumnType type;
    try {
      type = binder.typeOf(result);
    } catch (IllegalArgumentException e) {
      throw new Untranslatable("memwall cannot type " + expression.sql() + ": " + e.getMessage());
    }
    if (!agrees(expression.dataType(), type)) {
      throw new Untranslatable(expression.sql() + " is " + expression.dataType().simpleString() + " in Spark but "
          + type + " in memwall");
    }
    return result;
  }

  /** The memwall type of {@code expr} over the scanned table. */
  ColumnType typeOf(Expr expr) {
    return binder.typeOf(expr);
  }

  private Expr cast(Cast cast) throws Untranslatable {
    DataType from = cast.child().dataType();
    DataType to = cast.dataType();
    boolean widening = (from instanceof DecimalType f && to instanceof DecimalType t && f.scale() == t.scale()
        && t.precision() >= f.precision())
        || (DataTypes.IntegerType.equals(from) && DataTypes.LongType.equals(to))
        || from.equals(to);
    if (!widening) {
      throw new Untranslatable("memwall does not compute the cast " + cast.sql());
    }
    return translate(cast.child());
  }

  private static Expr literal(Literal literal) throws Untranslatable {
    return literal(literal.value(), literal.dataType());
  }

  /**
   * Spark's internal literal {@code value} of {@code type} as a memwall literal of the matching type.
   *
   * @throws Untranslatable for a null, a type memwall has no literal of, or a decimal beyond scaled int64
   */
  static Expr.Literal literal(Object value, DataType type) throws Untranslatable {
    if (value == null) {
      throw new Untranslatable("a null literal");
    }
    if (DataTypes.IntegerType.equals(type)) {
      return new Expr.Literal((long) (Integer) value, ColumnType.INT32);
    } else if (DataTypes.LongType.equals(type)) {
      return Expr.lit((long) (Long) value);
    } else if (DataTypes.DoubleType.equals(type)) {
      return Expr.lit((double) (Double) value);
    } else if (DataTypes.DateType.equals(type)) {
      return new Expr.Literal((long) (Integer) value, ColumnType.DATE);
    } else if (DataTypes.StringType.equals(type)) {
      return Expr.lit(((UTF8String) value).toString());
    } else if (type instanceof DecimalType) {
      try {
        return Expr.decimal(((Decimal) value).toJavaBigDecimal());
      } catch (ArithmeticException | IllegalArgumentException e) {
        throw new Untranslatable("the decimal literal " + value + " does not fit memwall's scaled int64");
      }
    }
    throw new Untranslatable("a literal of type " + type.simpleString());
  }

  /** Whether memwall's {@code type} holds the values of Spark's {@code spark} type. */
  static boolean agrees(DataType spark, ColumnType type) {
    ColumnType.Kind kind = type.kind();
    if (DataTypes.IntegerType.equals(spark) || DataTypes.LongType.equals(spark)) {
      return kind == ColumnType.Kind.INT32 || kind == ColumnType.Kind.INT64;
    } else if (DataTypes.DoubleType.equals(spark)) {
      return kind == ColumnType.Kind.FLOAT64;
    } else if (DataTypes.DateType.equals(spark)) {
      return kind == ColumnType.Kind.DATE;
    } else if (DataTypes.StringType.equals(spark)) {
      return kind == ColumnType.Kind.STRING;
    } else if (spark instanceof DecimalType d) {
      return kind == ColumnType.Kind.DECIMAL ? type.scale() == d.scale()
          : d.scale() == 0 && (kind == ColumnType.Kind.INT32 || kind == ColumnType.Kind.INT64);
    }
    return false;
  }
}
