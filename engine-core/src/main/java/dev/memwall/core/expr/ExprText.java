package dev.memwall.core.expr;

import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.TimestampColumn;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Expressions as SQL-like text for EXPLAIN output and error messages: {@code l_shipdate >=
 * DATE '1994-01-01' AND l_discount BETWEEN ...} rather than the records' nested {@code toString}.
 * Thread safety: stateless. An expression kind it does not know prints as its record.
 */
public final class ExprText {
  private ExprText() {}

  public static String of(Expr expr) {
    return switch (expr) {
      case Expr.ColumnRef ref -> ref.name();
      case Expr.Literal literal -> literal(literal);
      case Expr.Arithmetic a -> "(" + of(a.left()) + " " + symbol(a.op()) + " " + of(a.right()) + ")";
      case Expr.Comparison c -> of(c.left()) + " " + symbol(c.op()) + " " + of(c.right());
      case Expr.And and -> join(and.operands(), " AND ");
      case Expr.Or or -> "(" + join(or.operands(), " OR ") + ")";
      case Expr.Not not -> "NOT (" + of(not.operand()) + ")";
      case Expr.Like like -> of(like.input()) + " LIKE '" + like.pattern().replace("'", "''") + "'";
      case Expr.InList in -> of(in.input()) + " IN (" + in.values().stream().map(ExprText::literal)
          .collect(Collectors.joining(", ")) + ")";
      case Expr.IsNull test -> of(test.input()) + " IS NULL";
      case Expr.Case c -> "CASE WHEN " + of(c.condition()) + " THEN " + of(c.then()) + " ELSE " + of(c.otherwise())
          + " END";
      case Expr.ExtractYear year -> "EXTRACT(YEAR FROM " + of(year.date()) + ")";
      case Expr.Substring sub -> "SUBSTRING(" + of(sub.input()) + " FROM " + sub.start() + " FOR " + sub.length() + ")";
      case Expr.Cast cast -> "CAST(" + of(cast.input()) + " AS " + cast.type() + ")";
      default -> expr.toString();
    };
  }

  private static String join(List<Expr> operands, String separator) {
    return operands.stream().map(ExprText::of).collect(Collectors.joining(separator));
  }

  private static String literal(Expr.Literal literal) {
    Object value = literal.value();
    if (value == null) {
      return "NULL";
    }
    ColumnType type = literal.type();
    return switch (type.kind()) {
      case DATE -> "DATE '" + LocalDate.ofEpochDay(((Number) value).longValue()) + "'";
      case DECIMAL -> BigDecimal.valueOf(((Number) value).longValue(), type.scale()).toPlainString();
      case STRING -> "'" + value.toString().replace("'", "''") + "'";
      case BOOLEAN -> ((Number) value).longValue() != 0 ? "TRUE" : "FALSE";
      case TIMESTAMP -> "TIMESTAMP '" + timestamp(((Number) value).longValue(), type) + "'";
      default -> value.toString();
    };
  }

  /** A timestamp constant as ISO text: a wall-clock time, or an instant with its zone's offset. */
  private static String timestamp(long value, ColumnType type) {
    Instant instant = TimestampColumn.instant(value, type);
    return type.zone() == null ? LocalDateTime.ofInstant(instant, ZoneOffset.UTC).toString()
        : instant.atZone(type.zoneId()).toOffsetDateTime().toString();
  }

  private static String symbol(Expr.ArithmeticOp op) {
    return switch (op) {
      case ADD -> "+";
      case SUB -> "-";
      case MUL -> "*";
      case DIV -> "/";
    };
  }

  private static String symbol(Expr.ComparisonOp op) {
    return switch (op) {
      case EQ -> "=";
      case NE -> "<>";
      case LT -> "<";
      case LE -> "<=";
      case GT -> ">";
      case GE -> ">=";
    };
  }
}
