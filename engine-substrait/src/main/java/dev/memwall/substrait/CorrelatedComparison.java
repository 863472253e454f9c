package dev.memwall.substrait;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.ExprText;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.substrait.logical.Names;
import io.substrait.expression.Expression;
import io.substrait.expression.FieldReference;
import java.util.List;
import java.util.Locale;

/**
 * A correlation conjunct {@code inner op outer} of an {@code [NOT] EXISTS} subquery beside its
 * {@code inner key = outer key} ones ({@code op} one of {@code <>, <, <=, >, >=}, the inner
 * column on the left), as TPC-H Q21's {@code l2.l_suppkey <> l1.l_suppkey}. memwall's hash joins
 * have no condition beyond their keys, so the subquery is grouped by its inner keys with the
 * smallest and largest value of the inner column, and the outer row's value is compared with
 * those: some row of the group has {@code inner <> v} exactly when the smallest or the largest
 * differs from {@code v}, some has {@code inner < v} exactly when the smallest does, and so on.
 * Nulls agree: the inner rows whose column is null satisfy no comparison and are skipped by
 * MIN and MAX, a group of only such rows has null extremes, and an outer null satisfies nothing.
 * EXISTS is then an inner join with the groups (one per key, so no row repeats) and the comparison
 * of the extremes; NOT EXISTS a left outer join, true where the group is missing, its extremes are
 * null, the outer value is null or the comparison is false.
 *
 * <p>Where the outer row is itself one of its group's rows ({@link OuterRowInSubquery}: Q21's late
 * line {@code l1} is one of its order's lines) and its value is not null, {@code <>} needs no outer
 * value: some row of the group differs from {@code v}, one of the group's values, exactly when the
 * group has two distinct values, that is when its smallest and largest differ. EXISTS is then a
 * semi join with the groups whose extremes differ, NOT EXISTS an anti join with them, and the
 * groups are filtered before the join instead of each joined row after it (the hand-written Q21's
 * plan). A null key matches no group either way, which is what both predicates ask. Like the inner
 * and outer joins, the join goes above the enclosing relation, not down into it: the groups are
 * then taken only for the keys of the rows that reach it ({@code GroupReduction}), where a join
 * placed on one input would have to group every key of that input.
 *
 * @param inner the subquery's column, of a type MIN and MAX take (not a string)
 * @param outer the enclosing query's column
 */
record CorrelatedComparison(String inner, Expr.ComparisonOp op, String outer) {
  CorrelatedComparison {
    if (op == Expr.ComparisonOp.EQ) {
      throw new IllegalArgumentException("an equality is a join key, not a correlated comparison: " + inner);
    }
  }

  /**
   * {@code conjunct} as a {@link CorrelatedComparison} when it compares an inner field with an outer
   * field by {@code <>, <, <=, >} or {@code >=}; null otherwise. Whether MIN and MAX take the inner
   * field's type is checked where it is used ({@link #takes}).
   */
  static CorrelatedComparison of(Expression conjunct, List<String> outer, ExpressionConverter inner) {
    if (!(conjunct instanceof Expression.ScalarFunctionInvocation call) || call.arguments().size() != 2
        || !(call.arguments().get(0) instanceof FieldReference a) || !(call.arguments().get(1) instanceof FieldReference b)) {
      return null;
    }
    Expr.ComparisonOp op = switch (call.declaration().name().toLowerCase(Locale.ROOT)) {
      case "not_equal" -> Expr.ComparisonOp.NE;
      case "lt" -> Expr.ComparisonOp.LT;
      case "lte" -> Expr.ComparisonOp.LE;
      case "gt" -> Expr.ComparisonOp.GT;
      case "gte" -> Expr.ComparisonOp.GE;
      default -> null;
    };
    boolean outerFirst = RelConverter.isOuterField(a);
    FieldReference outerSide = outerFirst ? a : RelConverter.isOuterField(b) ? b : null;
    FieldReference innerSide = outerFirst ? b : a;
    if (op == null || outerSide == null || innerSide.isOuterReference()) {
      return null;
    }
    int offset = ((FieldReference.StructField) outerSide.segments().getFirst()).offset();
    if (offset < 0 || offset >= outer.size()) {
      return null;
    }
    return new CorrelatedComparison(inner.column(innerSide), outerFirst ? turned(op) : op, outer.get(offset));
  }

  /** Whether MIN and MAX take the inner column, of {@code type} (null: a type memwall has no kind for). */
  static boolean takes(ColumnType type) {
    return type != null && type.kind() != ColumnType.Kind.STRING;
  }

  @Override
  public String toString() {
    return ExprText.of(new Expr.Comparison(op, Expr.col(inner), Expr.col(outer)));
  }

  /** {@code op} for {@code b op' a} meaning {@code a op b}. */
  static Expr.ComparisonOp turned(Expr.ComparisonOp op) {
    return switch (op) {
      case EQ, NE -> op;
      case LT -> Expr.ComparisonOp.GT;
      case LE -> Expr.ComparisonOp.GE;
      case GT -> Expr.ComparisonOp.LT;
      case GE -> Expr.ComparisonOp.LE;
    };
  }

  /**
   * The rows of {@code rel} for which {@code EXISTS} ({@code negated}: {@code NOT EXISTS}) holds
   * over {@code subquery}'s rows whose {@code innerKeys} equal the row's {@code outerKeys} and whose
   * {@code inner} compares with its {@code outer} by {@code op}.
   *
   * @param outerRowInGroup whether each row of {@code rel} is a row of {@code subquery}'s group of
   *     its keys and its {@code outer} value is never null (then {@code <>} is decided by the group alone)
   */
  LogicalRel exists(LogicalRel rel, LogicalRel subquery, List<String> outerKeys, List<String> innerKeys,
      boolean negated, Names names, boolean outerRowInGroup) {
    String lowest = names.fresh("exists$min");
    String highest = names.fresh("exists$max");
    List<NamedExpr> keys = innerKeys.stream().map(key -> Expr.col(key).as(key)).toList();
    LogicalRel groups = new LogicalRel.Aggregation(subquery, keys,
        List.of(Aggregate.min(Expr.col(inner), lowest), Aggregate.max(Expr.col(inner), highest)));
    if (op == Expr.ComparisonOp.NE && outerRowInGroup) {
      LogicalRel mixed = new LogicalRel.Filter(groups, Expr.col(lowest).ne(Expr.col(highest)));
      return new LogicalRel.Join(negated ? JoinKind.ANTI : JoinKind.SEMI, rel, mixed, outerKeys, innerKeys);
    }
    Expr value = Expr.col(outer);
    Expr some = switch (op) {
      case NE -> Expr.or(Expr.col(lowest).ne(value), Expr.col(highest).ne(value));
      case LT -> Expr.col(lowest).lt(value);
      case LE -> Expr.col(lowest).le(value);
      case GT -> Expr.col(highest).gt(value);
      case GE -> Expr.col(highest).ge(value);
      case EQ -> throw new IllegalStateException("an equality is a join key");
    };
    if (!negated) {
      return new LogicalRel.Filter(new LogicalRel.Join(JoinKind.INNER, rel, groups, outerKeys, innerKeys), some);
    }
    Expr none = Expr.or(Expr.isNull(Expr.col(lowest)), Expr.isNull(value), Expr.not(some));
    return new LogicalRel.Filter(new LogicalRel.Join(JoinKind.LEFT_OUTER, rel, groups, outerKeys, innerKeys), none);
  }
}
