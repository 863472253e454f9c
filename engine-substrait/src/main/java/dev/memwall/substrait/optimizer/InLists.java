package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * ORs of equalities between one column (or one substring of a column) and string literals as one
 * {@code IN} list: SQL's {@code p_container in ('SM CASE', 'SM BOX')} arrives as
 * {@code p_container = 'SM CASE' or p_container = 'SM BOX'}, and {@code substring(c_phone, 1, 2) in
 * ('13', '31')} as an equality of the substring per literal, which the binder runs as one string
 * match per literal, each a pass over the column's rows (cutting the substring again each time),
 * where an IN list is one pass matching any of them. The two mean the same for every row, nulls
 * included: a null column makes every equality null, so both are null (not true); a substring is
 * the same value in every equality of one row.
 *
 * <p>Only strings are rewritten (the binder runs an IN list of numbers as the same comparisons
 * anyway), and only equalities of the same column, or of the same substring (start and length) of
 * the same column, are grouped; other operands are kept in their order, the IN list taking the
 * place of the first equality it groups. Stateless and thread-safe.
 */
public final class InLists {
  private InLists() {}

  /**
   * {@code expr} with the equalities of its outermost OR grouped by column into IN lists, where a
   * column has two or more; anything else is returned as it is.
   */
  public static Expr of(Expr expr) {
    if (!(expr instanceof Expr.Or or)) {
      return expr;
    }
    Map<Expr, List<Expr.Literal>> values = new LinkedHashMap<>();
    for (Expr operand : or.operands()) {
      Equality equality = equality(operand);
      if (equality != null) {
        values.computeIfAbsent(equality.column(), column -> new ArrayList<>()).add(equality.value());
      }
    }
    if (values.values().stream().noneMatch(list -> list.size() > 1)) {
      return expr;
    }
    List<Expr> operands = new ArrayList<>();
    Set<Expr> grouped = new HashSet<>();
    for (Expr operand : or.operands()) {
      Equality equality = equality(operand);
      if (equality == null || values.get(equality.column()).size() == 1) {
        operands.add(operand);
      } else if (grouped.add(equality.column())) {
        operands.add(new Expr.InList(equality.column(), List.copyOf(values.get(equality.column()))));
      }
    }
    return operands.size() == 1 ? operands.getFirst() : new Expr.Or(List.copyOf(operands));
  }

  /** An equality's compared expression (a column or a substring of one) and its literal. */
  private record Equality(Expr column, Expr.Literal value) {}

  /** {@code column = 'text'} or {@code substring(column, ...) = 'text'} (either way round) as its parts, or null. */
  private static Equality equality(Expr operand) {
    if (!(operand instanceof Expr.Comparison c) || c.op() != Expr.ComparisonOp.EQ) {
      return null;
    }
    if (matched(c.left()) && c.right() instanceof Expr.Literal value && value.value() instanceof String) {
      return new Equality(c.left(), value);
    }
    if (matched(c.right()) && c.left() instanceof Expr.Literal value && value.value() instanceof String) {
      return new Equality(c.right(), value);
    }
    return null;
  }

  /** Whether an IN list may test {@code expr}: a column, or a substring of one (the binder's string matches). */
  private static boolean matched(Expr expr) {
    return expr instanceof Expr.ColumnRef
        || expr instanceof Expr.Substring substring && substring.input() instanceof Expr.ColumnRef;
  }
}
