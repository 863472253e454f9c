package dev.memwall.spark;

import dev.memwall.core.expr.Expr;
import dev.memwall.spark.CatalystTranslator.Untranslatable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * Translates Spark's data source V2 predicates into memwall filter expressions with the same meaning,
 * or says why it cannot. Translated (and so pushed, and evaluated by memwall alone):
 *
 * <ul>
 *   <li>{@code =, <>, <, <=, >, >=} between a column and a literal of the column's type, either side;
 *   <li>{@code IN} of a column and non-null literals of its type;
 *   <li>{@code IS_NULL}, {@code IS_NOT_NULL} of a column (double columns too);
 *   <li>{@code STARTS_WITH} of a string column and a literal prefix without {@code %} or {@code _}
 *       (a LIKE pattern memwall matches exactly: it has no escape character);
 *   <li>{@code AND}, {@code OR}, {@code NOT} of translatable predicates.
 * </ul>
 *
 * <p>For columns of type int, bigint, double, date, decimal (up to precision 18) and string. Both engines
 * use SQL's three-valued logic (a comparison with a null is unknown and the row is dropped; NOT of unknown
 * is unknown), and compare strings by unsigned UTF-8 bytes, decimals exactly. Comparisons and IN on double
 * columns are rewritten to Spark's order ({@link FloatOrder#compare}: NaN equals NaN and is above every
 * number; memwall's own comparisons follow IEEE, where NaN compares false). Not translated, and left to
 * Spark: comparisons of two columns or of expressions (casts, arithmetic), null literals, null-safe
 * equality {@code <=>}, and other functions.
 *
 * <p>Thread safety: stateless.
 */
final class PredicateTranslator {
  /** A translation: the memwall expression, or null and why not. */
  record Result(Expr expr, String reason) {
    boolean translated() {
      return expr != null;
    }
  }

  private PredicateTranslator() {}

  /**
   * The memwall expression for {@code predicate} over columns of the given Spark types (by exact
   * name), or why there is none.
   */
  static Result translate(Predicate predicate, Map<String, DataType> columns) {
    try {
      return new Result(predicate(predicate, columns), null);
    } catch (Untranslatable e) {
      return new Result(null, e.getMessage());
    }
  }

  private static Expr predicate(Expression expression, Map<String, DataType> columns) throws Untranslatable {
    if (!(expression instanceof Predicate p)) {
      throw new Untranslatable(expression.describe() + " is not a predicate");
    }
    Expression[] children = p.children();
    switch (p.name()) {
      case "AND", "OR" -> {
        List<Expr> operands = new ArrayList<>();
        for (Expression child : children) {
          operands.add(predicate(child, columns));
        }
        return p.name().equals("AND") ? new Expr.And(operands) : new Expr.Or(operands);
      }
      case "NOT" -> {
        return Expr.not(predicate(children[0], columns));
      }
      case "IS_NULL", "IS_NOT_NULL" -> {
        Expr test = Expr.isNull(column(children[0], columns).ref());
        return p.name().equals("IS_NULL") ? test : Expr.not(test);
      }
      case "=", "<>", "<", "<=", ">", ">=" -> {
        return comparison(p.name(), children, columns);
      }
      case "IN" -> {
        Column input = column(children[0], columns);
        if (children.length < 2) {
          throw new Untranslatable("IN with no values");
        }
        Expr.Literal[] values = new Expr.Literal[children.length - 1];
        for (int i = 1; i < children.length; i++) {
          values[i - 1] = literal(children[i], input);
        }
        if (input.isDouble()) { // each value compared as Spark does: NaN IN (NaN), -0.0 IN (0.0)
          List<Expr> equals = new ArrayList<>();
          for (Expr.Literal value : values) {
            equals.add(FloatOrder.compare("=", input.ref(), (Double) value.value()));
          }
          return equals.size() == 1 ? equals.getFirst() : new Expr.Or(equals);
        }
        return input.ref().in(values);
      }
      case "STARTS_WITH" -> {
        Column input = column(children[0], columns);
        if (!DataTypes.StringType.equals(input.type())) {
          throw new Untranslatable("STARTS_WITH of a " + input.type().simpleString() + " column");
        }
        String prefix = (String) literal(children[1], input).value();
        if (prefix.indexOf('%') >= 0 || prefix.indexOf('_') >= 0) {
          throw new Untranslatable("STARTS_WITH a prefix holding % or _ (memwall's LIKE has no escape character)");
        }
        return input.ref().like(prefix + "%");
      }
      default -> throw new Untranslatable("memwall does not evaluate " + p.name());
    }
  }

  private static Expr comparison(String op, Expression[] children, Map<String, DataType> columns)
      throws Untranslatable {
    boolean columnFirst = children[0] instanceof NamedReference;
    if (columnFirst == children[1] instanceof NamedReference) {
      throw new Untranslatable(columnFirst ? "a comparison of two columns" : "a comparison without a bare column");
    }
    Column input = column(columnFirst ? children[0] : children[1], columns);
    Expr.Literal value = literal(columnFirst ? children[1] : children[0], input);
    if (input.isDouble()) {
      return FloatOrder.compare(columnFirst ? op : mirrored(op), input.ref(), (Double) value.value());
    }
    Expr left = columnFirst ? input.ref() : value;
    Expr right = columnFirst ? value : input.ref();
    return switch (op) {
      case "=" -> left.eq(right);
      case "<>" -> left.ne(right);
      case "<" -> left.lt(right);
      case "<=" -> left.le(right);
      case ">" -> left.gt(right);
      default -> left.ge(right);
    };
  }

  /** {@code op} with its operands swapped: {@code v op x} is {@code x mirrored(op) v}. */
  private static String mirrored(String op) {
    return switch (op) {
      case "<" -> ">";
      case "<=" -> ">=";
      case ">" -> "<";
      case ">=" -> "<=";
      default -> op;
    };
  }

  /** A referenced column of a type memwall filters exactly. */
  private record Column(String name, DataType type) {
    Expr ref() {
      return Expr.col(name);
    }

    boolean isDouble() {
      return DataTypes.DoubleType.equals(type);
    }
  }

  private static Column column(Expression expression, Map<String, DataType> columns) throws Untranslatable {
    if (!(expression instanceof NamedReference reference)) {
      throw new Untranslatable(expression.describe() + " is not a column");
    }
    String[] parts = reference.fieldNames();
    DataType type = parts.length == 1 ? columns.get(parts[0]) : null;
    if (type == null) {
      throw new Untranslatable("no top-level column " + reference.describe());
    }
    if (!SparkTypes.isSupported(type)) {
      throw new Untranslatable("column " + parts[0] + " of type " + type.simpleString());
    }
    return new Column(parts[0], type);
  }

  /** A literal of {@code column}'s type as a memwall literal of the matching memwall type. */
  private static Expr.Literal literal(Expression expression, Column column) throws Untranslatable {
    if (!(expression instanceof Literal<?> literal)) {
      throw new Untranslatable(expression.describe() + " is not a literal");
    }
    if (literal.value() != null && !literal.dataType().equals(column.type())) {
      throw new Untranslatable("a " + literal.dataType().simpleString() + " literal compared with " + column.name()
          + " of type " + column.type().simpleString());
    }
    return CatalystTranslator.literal(literal.value(), column.type());
  }

  /** Adds the columns {@code predicates} read to {@code columns}. */
  static void addColumns(Predicate[] predicates, Set<String> columns) {
    for (Predicate predicate : predicates) {
      for (NamedReference reference : predicate.references()) {
        columns.add(String.join(".", reference.fieldNames()));
      }
    }
  }
}
