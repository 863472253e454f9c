package dev.memwall.substrait;

import dev.memwall.core.expr.Expr;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Semi-join reduction of a decorrelated subquery's grouping: a correlated subquery grouped by its
 * inner key columns is only ever read for the groups of keys the enclosing query's rows have, so
 * its input can first be semi-joined with a relation that has at least those keys. The relation
 * taken is the input of the enclosing query's join region that produces all the outer key
 * columns, under the conditions of the region that read only it (TPC-H Q17: the parts of the
 * brand and container, so that lineitem is grouped for those parts only, not for all of them).
 * Every key an enclosing row has is among that input's filtered keys, so no group that is read is
 * lost; the reduction is only taken where it drops something, that is where the input is not a
 * bare table read. That input is read once more for it (names repeat in the two branches, which
 * are lowered apart). Stateless.
 */
final class KeyReduction {
  private KeyReduction() {}

  /**
   * The relation whose rows have at least every value of {@code outerKeys} that {@code rel}'s rows
   * have, cheaper than {@code rel}; null where there is none worth the join.
   */
  static LogicalRel reducer(LogicalRel rel, List<String> outerKeys) {
    List<Expr> conditions = new ArrayList<>();
    LogicalRel at = rel;
    while (true) {
      LogicalRel next = switch (at) {
        case LogicalRel.Filter filter -> {
          conditions.addAll(Exprs.conjuncts(filter.condition()));
          yield filter.input();
        }
        case LogicalRel.Cross cross -> side(outerKeys, cross.left(), cross.right());
        case LogicalRel.Join join when join.kind() == JoinKind.INNER -> side(outerKeys, join.left(), join.right());
        case LogicalRel.Join join when join.kind() == JoinKind.SEMI || join.kind() == JoinKind.ANTI -> join;
        default -> null;
      };
      if (next == null || next == at) {
        break;
      }
      at = next;
    }
    boolean regionNode = at instanceof LogicalRel.Cross || at instanceof LogicalRel.Filter
        || at instanceof LogicalRel.Join join && join.kind() == JoinKind.INNER;
    if (regionNode || !at.columns().containsAll(outerKeys)) { // the keys come from several inputs: no smaller one
      return null;
    }
    Set<String> columns = new HashSet<>(at.columns());
    List<Expr> own = conditions.stream().filter(c -> columns.containsAll(Exprs.columns(c))).toList();
    if (own.isEmpty() && at instanceof LogicalRel.Scan) {
      return null;
    }
    return own.isEmpty() ? at : new LogicalRel.Filter(at, Exprs.and(own));
  }

  /** The one of {@code left} and {@code right} that has every one of {@code keys}, or null. */
  private static LogicalRel side(List<String> keys, LogicalRel left, LogicalRel right) {
    return left.columns().containsAll(keys) ? left : right.columns().containsAll(keys) ? right : null;
  }

  /**
   * {@code grouped} (projects over an aggregation grouped by {@code innerKeys}) with the
   * aggregation's input semi-joined with {@code reducer} on {@code innerKeys = outerKeys}, on the
   * input of its join region that has the inner keys ({@link SemiJoinPlacement}).
   */
  static LogicalRel reduce(LogicalRel grouped, LogicalRel reducer, List<String> innerKeys, List<String> outerKeys) {
    return switch (grouped) {
      case LogicalRel.Project project -> new LogicalRel.Project(reduce(project.input(), reducer, innerKeys, outerKeys),
          project.outputs());
      case LogicalRel.Aggregation aggregation -> new LogicalRel.Aggregation(SemiJoinPlacement.place(
          aggregation.input(), JoinKind.SEMI, reducer, innerKeys, outerKeys), aggregation.keys(), aggregation.measures());
      default -> throw new IllegalStateException("not a grouped subquery: " + grouped);
    };
  }
}
