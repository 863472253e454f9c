package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * ORs of equalities between one column and string literals as one {@code IN} list: SQL's
 * {@code p_container in ('SM CASE', 'SM BOX')} arrives as {@code p_container = 'SM CASE' or
 * p_container = 'SM BOX'}, which the binder runs as one string match per literal, each a pass over
 * the column's rows, where an IN list is one pass matching any of them. The two mean the same for
 * every row, nulls included: a null column makes every equality null, so both are null (not true).
 *
 * <p>Only string columns are rewritten (the binder runs an IN list of numbers as the same
 * comparisons anyway); other operands are kept in their order, the IN list taking the place of the
 * column's first equality. Stateless and thread-safe.
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
    Map<Expr.ColumnRef, List<Expr.Literal>> values = new LinkedHashMap<>();
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
    Set<Expr.ColumnRef> grouped = new HashSet<>();
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

  private record Equality(Expr.ColumnRef column, Expr.Literal value) {}

  /** {@code column = 'text'} (either way round) as its parts, or null. */
  private static Equality equality(Expr operand) {
    if (!(operand instanceof Expr.Comparison c) || c.op() != Expr.ComparisonOp.EQ) {
      return null;
    }
    if (c.left() instanceof Expr.ColumnRef column && c.right() instanceof Expr.Literal value
        && value.value() instanceof String) {
      return new Equality(column, value);
    }
    if (c.right() instanceof Expr.ColumnRef column && c.left() instanceof Expr.Literal value
        && value.value() instanceof String) {
      return new Equality(column, value);
    }
    return null;
  }
}
