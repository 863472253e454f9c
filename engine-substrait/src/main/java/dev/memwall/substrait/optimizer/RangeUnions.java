package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.Expr.ComparisonOp;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.substrait.logical.Exprs;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * ORs of ranges of one column as fewer ranges: {@code (q >= 1 and q <= 11) or (q >= 10 and q <=
 * 20) or (q >= 20 and q <= 30)}, which {@link DisjunctionPushdown} derives from TPC-H Q19's
 * branches, is {@code q >= 1 and q <= 30}, one pass over the column where the OR is a pass per
 * branch over the rows no earlier branch took, each reading the column row by row.
 *
 * <p>Rewritten: an OR every operand of which is a conjunction of comparisons ({@code =, <, <=, >,
 * >=}, either way round) of one and the same column with numeric literals of one type. Each operand
 * is then an interval of the column's values; intervals that overlap, or meet at a bound one of
 * them includes, are one interval. The OR becomes the OR of the merged intervals (a single one
 * when they all merge), each a comparison or two. Only a lower count of operands is a rewrite; an
 * OR whose union is every value is left alone. Nulls: every comparison of a null column value is
 * null, so each operand is null, the OR is null, and so is every merged interval; for a value, the
 * union of intervals is the OR by definition. An operand whose interval is empty (false for every
 * value, null for a null one) is left out of the union, which changes no row. Literals of
 * different types (an INTEGER and a DECIMAL(2)) are not compared, so nothing is assumed about
 * how the column aligns them. Stateless and thread-safe.
 */
public final class RangeUnions {
  private RangeUnions() {}

  /** An interval of values; a null bound is unbounded on that side. */
  private record Interval(Expr.Literal low, boolean lowIncluded, Expr.Literal high, boolean highIncluded) {
    long lowValue() {
      return (Long) low.value();
    }

    long highValue() {
      return (Long) high.value();
    }

    boolean empty() {
      return low != null && high != null
          && (lowValue() > highValue() || lowValue() == highValue() && !(lowIncluded && highIncluded));
    }

    Interval intersect(Interval other) {
      Interval lower = lowerOf(other);
      Interval upper = upperOf(other);
      return new Interval(lower.low, lower.lowIncluded, upper.high, upper.highIncluded);
    }

    /** The one of this and {@code other} whose lower bound is the tighter (the higher). */
    private Interval lowerOf(Interval other) {
      if (low == null) {
        return other;
      }
      if (other.low == null) {
        return this;
      }
      int cmp = Long.compare(lowValue(), other.lowValue());
      return cmp > 0 || cmp == 0 && !lowIncluded ? this : other;
    }

    /** The one of this and {@code other} whose upper bound is the tighter (the lower). */
    private Interval upperOf(Interval other) {
      if (high == null) {
        return other;
      }
      if (other.high == null) {
        return this;
      }
      int cmp = Long.compare(highValue(), other.highValue());
      return cmp < 0 || cmp == 0 && !highIncluded ? this : other;
    }

    /** Whether {@code next}, which starts no lower than this, overlaps this or meets it at an included bound. */
    boolean reaches(Interval next) {
      if (high == null || next.low == null) {
        return true;
      }
      int cmp = Long.compare(next.lowValue(), highValue());
      return cmp < 0 || cmp == 0 && (highIncluded || next.lowIncluded);
    }

    /** The union of this and {@code next}, which {@link #reaches} it. */
    Interval span(Interval next) {
      if (high == null || next.high == null) {
        return new Interval(low, lowIncluded, null, false);
      }
      int cmp = Long.compare(highValue(), next.highValue());
      boolean thisHigh = cmp > 0 || cmp == 0 && highIncluded;
      return thisHigh ? this : new Interval(low, lowIncluded, next.high, next.highIncluded);
    }

    Expr expr(Expr.ColumnRef column) {
      if (low != null && high != null && lowValue() == highValue()) {
        return column.eq(low);
      }
      List<Expr> bounds = new ArrayList<>();
      if (low != null) {
        bounds.add(lowIncluded ? column.ge(low) : column.gt(low));
      }
      if (high != null) {
        bounds.add(highIncluded ? column.le(high) : column.lt(high));
      }
      return Exprs.and(bounds);
    }
  }

  /** Orders intervals by their lower bounds, unbounded first, an included bound before an excluded one. */
  private static final Comparator<Interval> BY_LOW = (a, b) -> {
    if (a.low == null || b.low == null) {
      return a.low == null ? (b.low == null ? 0 : -1) : 1;
    }
    int cmp = Long.compare(a.lowValue(), b.lowValue());
    return cmp != 0 ? cmp : Boolean.compare(b.lowIncluded, a.lowIncluded);
  };

  /** {@code expr} with its outermost OR's ranges merged, when that leaves fewer operands; else {@code expr}. */
  public static Expr of(Expr expr) {
    if (!(expr instanceof Expr.Or or)) {
      return expr;
    }
    Expr.ColumnRef column = null;
    ColumnType type = null;
    List<Interval> intervals = new ArrayList<>();
    for (Expr operand : or.operands()) {
      Interval interval = new Interval(null, false, null, false);
      for (Expr conjunct : Exprs.conjuncts(operand)) {
        Bound bound = bound(conjunct);
        if (bound == null || column != null && !column.equals(bound.column())
            || type != null && !type.equals(bound.value().type())) {
          return expr;
        }
        column = bound.column();
        type = bound.value().type();
        interval = interval.intersect(bound.interval());
      }
      if (!interval.empty()) {
        intervals.add(interval);
      }
    }
    if (intervals.isEmpty()) {
      return expr;
    }
    intervals.sort(BY_LOW);
    List<Interval> merged = new ArrayList<>();
    Interval current = intervals.getFirst();
    for (Interval next : intervals.subList(1, intervals.size())) {
      if (current.reaches(next)) {
        current = current.span(next);
      } else {
        merged.add(current);
        current = next;
      }
    }
    merged.add(current);
    if (merged.size() >= or.operands().size() || merged.size() == 1 && current.low == null && current.high == null) {
      return expr;
    }
    Expr.ColumnRef ref = column;
    List<Expr> operands = merged.stream().map(interval -> interval.expr(ref)).toList();
    return operands.size() == 1 ? operands.getFirst() : new Expr.Or(operands);
  }

  /** A comparison of a column with a numeric literal, as the column, the literal and the interval it allows. */
  private record Bound(Expr.ColumnRef column, Expr.Literal value, Interval interval) {}

  private static Bound bound(Expr conjunct) {
    if (!(conjunct instanceof Expr.Comparison c) || c.op() == ComparisonOp.NE) {
      return null;
    }
    if (c.left() instanceof Expr.Literal && c.right() instanceof Expr.ColumnRef) { // 5 < q is q > 5
      return bound(new Expr.Comparison(MIRRORED.get(c.op()), c.right(), c.left()));
    }
    if (!(c.left() instanceof Expr.ColumnRef column) || !(c.right() instanceof Expr.Literal value)
        || !(value.value() instanceof Long) || !numeric(value.type())) {
      return null;
    }
    Interval interval = switch (c.op()) {
      case EQ -> new Interval(value, true, value, true);
      case LT -> new Interval(null, false, value, false);
      case LE -> new Interval(null, false, value, true);
      case GT -> new Interval(value, false, null, false);
      case GE -> new Interval(value, true, null, false);
      case NE -> throw new IllegalStateException("not a range");
    };
    return new Bound(column, value, interval);
  }

  /** Each comparison as it reads with its operands swapped. */
  private static final java.util.Map<ComparisonOp, ComparisonOp> MIRRORED = java.util.Map.of(ComparisonOp.EQ,
      ComparisonOp.EQ, ComparisonOp.LT, ComparisonOp.GT, ComparisonOp.LE, ComparisonOp.GE, ComparisonOp.GT,
      ComparisonOp.LT, ComparisonOp.GE, ComparisonOp.LE);

  private static boolean numeric(ColumnType type) {
    return switch (type.kind()) {
      case INT32, INT64, DECIMAL, DATE -> true;
      default -> false;
    };
  }
}
