package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * Grouping only the keys a join reads: where an aggregation, possibly filtered, is joined on
 * grouping keys of its (inner join, either side; left outer, semi and anti join, the build side),
 * only the groups whose keys the other side has are ever read, so the aggregation's input may first
 * be semi-joined with the other side on those keys. A group is kept whole or dropped whole (every
 * row of a kept key stays), so the groups read keep their values and a filter over them keeps the
 * same ones; a null key matches nothing in any of the joins. TPC-H Q21's EXISTS and NOT EXISTS with
 * {@code <>} group lineitem by order ({@code CorrelatedComparison}); the outer query reaches them
 * with the late lines of one nation's suppliers only, so the groupings are taken over those orders'
 * lines instead of over all of lineitem.
 *
 * <pre>
 * join on K = F                    =&gt;   join on K = F
 *   aggregate keys K ... over I            aggregate keys K ... over (I semi join shared O on K = F)
 *   O                                      shared O
 * </pre>
 *
 * <p>The other side O is read twice, so it becomes a {@link LogicalRel.Shared} relation computed
 * once (as a join's build side it is materialized anyway). It applies where it pays by the
 * estimates: O's distinct keys (its rows where unknown) are fewer than a {@link #REDUCTION} of the
 * aggregation's estimated groups, and O is not a table read whole (a table's keys are commonly all
 * of a foreign key's, as {@code KeyReduction} also assumes, and copying it to share it would cost
 * more than the reduction saves). Joins are visited from the leaves up, so an enclosing join's
 * other side may itself hold a reduced one. Stateless and thread-safe.
 */
public final class GroupReduction {
  /** The share of the groups the other side's keys may have at most for the reduction to be made. */
  static final double REDUCTION = 0.25;

  private GroupReduction() {}

  /**
   * {@code rel} with each such join's aggregation reduced; the same rows.
   *
   * @param ids gives each new shared relation its id
   */
  public static LogicalRel rewrite(LogicalRel rel, CardinalityEstimator estimator, IntSupplier ids) {
    return switch (rel) {
      case LogicalRel.Scan scan -> scan;
      case LogicalRel.Filter f -> new LogicalRel.Filter(rewrite(f.input(), estimator, ids), f.condition());
      case LogicalRel.Project p -> new LogicalRel.Project(rewrite(p.input(), estimator, ids), p.outputs());
      case LogicalRel.Aggregation a -> new LogicalRel.Aggregation(rewrite(a.input(), estimator, ids), a.keys(),
          a.measures());
      case LogicalRel.Sort sort -> new LogicalRel.Sort(rewrite(sort.input(), estimator, ids), sort.keys());
      case LogicalRel.Limit limit -> new LogicalRel.Limit(rewrite(limit.input(), estimator, ids), limit.rows());
      case LogicalRel.Cross cross -> new LogicalRel.Cross(rewrite(cross.left(), estimator, ids),
          rewrite(cross.right(), estimator, ids));
      case LogicalRel.Shared shared -> new LogicalRel.Shared(shared.id(), rewrite(shared.input(), estimator, ids));
      case LogicalRel.Join join -> reduce(new LogicalRel.Join(join.kind(), rewrite(join.left(), estimator, ids),
          rewrite(join.right(), estimator, ids), join.leftKeys(), join.rightKeys()), estimator, ids);
    };
  }

  private static LogicalRel reduce(LogicalRel.Join join, CardinalityEstimator estimator, IntSupplier ids) {
    if (reduces(join.right(), join.rightKeys(), join.left(), join.leftKeys(), estimator)) {
      LogicalRel other = Rebuild.shared(join.left(), ids);
      return new LogicalRel.Join(join.kind(), other, withSemiJoin(join.right(), join.rightKeys(), other,
          join.leftKeys()), join.leftKeys(), join.rightKeys());
    }
    if (join.kind() == JoinKind.INNER && reduces(join.left(), join.leftKeys(), join.right(), join.rightKeys(),
        estimator)) {
      LogicalRel other = Rebuild.shared(join.right(), ids);
      return new LogicalRel.Join(join.kind(), withSemiJoin(join.left(), join.leftKeys(), other, join.rightKeys()),
          other, join.leftKeys(), join.rightKeys());
    }
    return join;
  }

  /**
   * Whether {@code side} is an aggregation, possibly under filters, whose {@code keys} are all
   * grouping keys passed on from its input by name, and {@code other}'s {@code otherKeys} are
   * estimated to keep at most {@link #REDUCTION} of its groups.
   */
  private static boolean reduces(LogicalRel side, List<String> keys, LogicalRel other, List<String> otherKeys,
      CardinalityEstimator estimator) {
    if (!(grouping(side) instanceof LogicalRel.Aggregation a) || keys.stream().anyMatch(key -> input(a, key) == null)
        || wholeTable(other)) {
      return false;
    }
    double groups = estimator.of(a).rows();
    CardinalityEstimator.Estimate kept = estimator.of(other);
    double otherKeyValues = kept.rows();
    if (otherKeys.size() == 1) {
      otherKeyValues = Math.min(otherKeyValues, kept.column(otherKeys.getFirst()).map(ColumnStatistics::distinct)
          .orElse(otherKeyValues));
    }
    return otherKeyValues < REDUCTION * groups;
  }

  /** {@code side} below its filters: a filter over groups keeps or drops each group whole. */
  private static LogicalRel grouping(LogicalRel side) {
    return side instanceof LogicalRel.Filter filter ? grouping(filter.input()) : side;
  }

  /** Whether {@code rel} is a table read whole (possibly projected), whose keys nothing has reduced. */
  private static boolean wholeTable(LogicalRel rel) {
    return rel instanceof LogicalRel.Scan || rel instanceof LogicalRel.Project project && wholeTable(project.input());
  }

  /** The input column grouping key {@code key} of {@code a} passes on unchanged, or null. */
  private static String input(LogicalRel.Aggregation a, String key) {
    for (NamedExpr grouping : a.keys()) {
      if (grouping.name().equals(key) && grouping.expr() instanceof Expr.ColumnRef ref) {
        return ref.name();
      }
    }
    return null;
  }

  /**
   * {@code side} ({@link #reduces}) grouping only the rows of its aggregation's input whose key
   * columns for {@code keys} {@code other} has, under the same filters.
   */
  private static LogicalRel withSemiJoin(LogicalRel side, List<String> keys, LogicalRel other,
      List<String> otherKeys) {
    if (side instanceof LogicalRel.Filter filter) {
      return new LogicalRel.Filter(withSemiJoin(filter.input(), keys, other, otherKeys), filter.condition());
    }
    LogicalRel.Aggregation a = (LogicalRel.Aggregation) side;
    List<String> inputKeys = new ArrayList<>();
    keys.forEach(key -> inputKeys.add(input(a, key)));
    return new LogicalRel.Aggregation(new LogicalRel.Join(JoinKind.SEMI, a.input(), other, inputKeys, otherKeys),
        a.keys(), a.measures());
  }
}
