package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * An aggregation joined on its grouping keys is joined after an inner join that reduces its other
 * side, not before: TPC-H Q21's EXISTS groups lineitem by order, and its groups were joined to the
 * nation's late lines before those were joined to the orders of status 'F'; joined after, the
 * grouping is reduced ({@link GroupReduction}) to the orders of the late lines that are also of
 * status 'F', half as many. The join order's estimates do not see this, as they take an
 * aggregation's rows as they are, not as the keys it is later joined with leave them.
 *
 * <pre>
 * join on RK = XK                     =&gt;   filter C
 *   R                                        join on GK = XG
 *   filter C                                   aggregate G (grouping keys GK)
 *     join on GK = XG                          join on RK = XK
 *       aggregate G (grouping keys GK)           R
 *       X                                        X
 * </pre>
 *
 * <p>It holds where XK are columns of X (so C, which reads only G's and X's columns, reads none of
 * R's): inner joins are associative and commutative, each result row is a triple of a row of R, G
 * and X that the pairs match in either order, as often in both, and a filter over a join keeps the
 * same rows whether another inner join is taken below or above it. The filter C may be absent, or
 * several. It is made where R is a table's scan under filters the estimate says drop rows, joined on
 * columns that hold a declared key of the table (from the catalog): X joined to R then has at most
 * X's rows, and fewer, so that the grouping is reduced further than by X. Stateless and thread-safe
 * when the estimator and the keys are.
 */
public final class AggregationJoinedLast {
  private AggregationJoinedLast() {}

  /**
   * {@code rel} with each such aggregation joined last; the same rows.
   *
   * @param keys the declared keys of a scan's table, as lists of the table's column names
   */
  public static LogicalRel rewrite(LogicalRel rel, Function<LogicalRel.Scan, List<List<String>>> keys,
      CardinalityEstimator estimator) {
    return Rebuild.eachNode(rel, node -> node instanceof LogicalRel.Join join && join.kind() == JoinKind.INNER
        ? moved(join, keys, estimator) : node);
  }

  private static LogicalRel moved(LogicalRel.Join join, Function<LogicalRel.Scan, List<List<String>>> keys,
      CardinalityEstimator estimator) {
    List<Expr> conditions = new ArrayList<>();
    LogicalRel below = join.right();
    while (below instanceof LogicalRel.Filter filter) {
      conditions.add(filter.condition());
      below = filter.input();
    }
    if (!(below instanceof LogicalRel.Join grouped) || grouped.kind() != JoinKind.INNER
        || !(grouped.left() instanceof LogicalRel.Aggregation a) || !groupedOn(a, grouped.leftKeys())
        || !grouped.right().columns().containsAll(join.rightKeys())) {
      return join;
    }
    LogicalRel reduced = new LogicalRel.Join(JoinKind.INNER, join.left(), grouped.right(), join.leftKeys(),
        join.rightKeys());
    if (!reducing(join.left(), join.leftKeys(), keys, estimator)) {
      return join;
    }
    LogicalRel moved = new LogicalRel.Join(JoinKind.INNER, a, reduced, grouped.leftKeys(), grouped.rightKeys());
    for (int i = conditions.size() - 1; i >= 0; i--) {
      moved = new LogicalRel.Filter(moved, conditions.get(i));
    }
    return moved;
  }

  /**
   * Whether {@code r} is a table's scan under filters the estimate says drop rows, joined on {@code
   * joinKeys} that hold a declared key of the table: then each row it is joined with matches at most
   * one of its rows, and some match none.
   */
  private static boolean reducing(LogicalRel r, List<String> joinKeys,
      Function<LogicalRel.Scan, List<List<String>>> keys, CardinalityEstimator estimator) {
    LogicalRel below = r;
    while (below instanceof LogicalRel.Filter filter) {
      below = filter.input();
    }
    if (!(below instanceof LogicalRel.Scan scan) || below == r
        || estimator.of(r).rows() >= estimator.of(scan).rows()) {
      return false;
    }
    Set<String> joined = new HashSet<>();
    for (String key : joinKeys) {
      String name = scan.tableColumn(key);
      if (name != null) {
        joined.add(name);
      }
    }
    return keys.apply(scan).stream().anyMatch(joined::containsAll);
  }

  /** Whether each of {@code keys} is a grouping key of {@code a} passed on from its input unchanged. */
  private static boolean groupedOn(LogicalRel.Aggregation a, List<String> keys) {
    return keys.stream().allMatch(key -> a.keys().stream()
        .anyMatch(grouping -> grouping.name().equals(key) && grouping.expr() instanceof Expr.ColumnRef));
  }
}
