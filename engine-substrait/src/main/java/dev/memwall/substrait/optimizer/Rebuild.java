package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.List;
import java.util.function.Function;

/** Rebuilding a plan around rewritten aggregations. Stateless and thread-safe. */
final class Rebuild {
  private Rebuild() {}

  /** {@code rel} with each aggregation, its input rewritten first, replaced by {@code rewrite}'s answer. */
  static LogicalRel bottomUp(LogicalRel rel, Function<LogicalRel.Aggregation, LogicalRel> rewrite) {
    return switch (rel) {
      case LogicalRel.Scan scan -> scan;
      case LogicalRel.Filter filter -> new LogicalRel.Filter(bottomUp(filter.input(), rewrite), filter.condition());
      case LogicalRel.Project project -> new LogicalRel.Project(bottomUp(project.input(), rewrite), project.outputs());
      case LogicalRel.Aggregation a -> rewrite.apply(new LogicalRel.Aggregation(bottomUp(a.input(), rewrite), a.keys(),
          a.measures()));
      case LogicalRel.Sort sort -> new LogicalRel.Sort(bottomUp(sort.input(), rewrite), sort.keys());
      case LogicalRel.Limit limit -> new LogicalRel.Limit(bottomUp(limit.input(), rewrite), limit.rows());
      case LogicalRel.Join join -> new LogicalRel.Join(join.kind(), bottomUp(join.left(), rewrite),
          bottomUp(join.right(), rewrite), join.leftKeys(), join.rightKeys());
      case LogicalRel.Cross cross -> new LogicalRel.Cross(bottomUp(cross.left(), rewrite),
          bottomUp(cross.right(), rewrite));
      case LogicalRel.Shared shared -> new LogicalRel.Shared(shared.id(), bottomUp(shared.input(), rewrite));
    };
  }

  /** {@code rel} projected onto {@code columns}, columns of it, in that order. */
  static LogicalRel sameColumns(LogicalRel rel, List<String> columns) {
    return new LogicalRel.Project(rel, columns.stream().map(name -> Expr.col(name).as(name)).toList());
  }
}
