package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Counting the optional side of a left outer join before the join instead of after it: TPC-H Q13's
 * {@code count(o_orderkey)} per customer over {@code customer left outer join orders} joins a count
 * per customer key (one row per key) instead of every order, and sums those counts per group:
 *
 * <pre>
 * aggregate keys K measures count(x) as m             aggregate keys K measures sum(coalesce(m', 0)) as m
 *   left_outer join on L = R                   =&gt;      left_outer join on L = R
 *     preserved                                            preserved
 *     optional                                             aggregate keys R measures count(x) as m'
 *                                                            optional
 * </pre>
 *
 * <p>It applies when the grouping keys are columns of the preserved side that include all its join
 * keys, and every measure counts a column of the optional side (projects of columns in between are
 * looked through). Then each group's preserved rows each meet exactly the optional rows of their key:
 * the count per key, summed over the group's preserved rows, is the group's count, a row without a
 * match adding 0 where the join's null-extended row counted nothing either. {@code count(*)} counts
 * that null-extended row and is not rewritten, nor is anything else. Stateless and thread-safe.
 */
public final class EagerCount {
  private EagerCount() {}

  /** {@code rel} with every aggregation of that shape, at any depth, rewritten; the same rows. */
  public static LogicalRel rewrite(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Scan scan -> scan;
      case LogicalRel.Filter filter -> new LogicalRel.Filter(rewrite(filter.input()), filter.condition());
      case LogicalRel.Project project -> new LogicalRel.Project(rewrite(project.input()), project.outputs());
      case LogicalRel.Aggregation a -> eager(new LogicalRel.Aggregation(rewrite(a.input()), a.keys(), a.measures()));
      case LogicalRel.Sort sort -> new LogicalRel.Sort(rewrite(sort.input()), sort.keys());
      case LogicalRel.Limit limit -> new LogicalRel.Limit(rewrite(limit.input()), limit.rows());
      case LogicalRel.Join join -> new LogicalRel.Join(join.kind(), rewrite(join.left()), rewrite(join.right()),
          join.leftKeys(), join.rightKeys());
      case LogicalRel.Cross cross -> new LogicalRel.Cross(rewrite(cross.left()), rewrite(cross.right()));
      case LogicalRel.Shared shared -> new LogicalRel.Shared(shared.id(), rewrite(shared.input()));
    };
  }

  private static LogicalRel eager(LogicalRel.Aggregation a) {
    LogicalRel below = a.input();
    while (below instanceof LogicalRel.Project project && project.outputs().stream()
        .allMatch(output -> output.expr() instanceof Expr.ColumnRef ref && ref.name().equals(output.name()))) {
      below = project.input();
    }
    if (!(below instanceof LogicalRel.Join join) || join.kind() != JoinKind.LEFT_OUTER || a.measures().isEmpty()) {
      return a;
    }
    Set<String> preserved = new HashSet<>(join.left().columns());
    Set<String> optional = new HashSet<>(join.right().columns());
    Set<String> keys = new HashSet<>();
    for (NamedExpr key : a.keys()) {
      if (!(key.expr() instanceof Expr.ColumnRef ref) || !preserved.contains(ref.name())) {
        return a;
      }
      keys.add(ref.name());
    }
    if (!keys.containsAll(join.leftKeys())) {
      return a;
    }
    Set<String> taken = new HashSet<>(join.columns());
    List<Aggregate> partial = new ArrayList<>();
    List<Aggregate> summed = new ArrayList<>();
    for (Aggregate measure : a.measures()) {
      if (measure.function() != Aggregate.Function.COUNT || !(measure.argument() instanceof Expr.ColumnRef counted)
          || !optional.contains(counted.name())) {
        return a;
      }
      String name = measure.name() + "$partial";
      for (int n = 2; !taken.add(name); n++) {
        name = measure.name() + "$partial" + n;
      }
      partial.add(Aggregate.count(counted, name));
      summed.add(Aggregate.sum(Expr.coalesce(Expr.col(name), Expr.lit(0)), measure.name()));
    }
    List<NamedExpr> byKey = join.rightKeys().stream().distinct().map(key -> Expr.col(key).as(key)).toList();
    LogicalRel counts = new LogicalRel.Aggregation(join.right(), byKey, partial);
    LogicalRel joined = new LogicalRel.Join(JoinKind.LEFT_OUTER, join.left(), counts, join.leftKeys(), join.rightKeys());
    return new LogicalRel.Aggregation(joined, a.keys(), summed);
  }
}
