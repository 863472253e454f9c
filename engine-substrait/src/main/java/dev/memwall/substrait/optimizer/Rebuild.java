package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/** Rebuilding a plan around rewritten nodes. Stateless and thread-safe. */
final class Rebuild {
  private Rebuild() {}

  /** {@code rel} with each aggregation, its input rewritten first, replaced by {@code rewrite}'s answer. */
  static LogicalRel bottomUp(LogicalRel rel, Function<LogicalRel.Aggregation, LogicalRel> rewrite) {
    return eachNode(rel, node -> node instanceof LogicalRel.Aggregation a ? rewrite.apply(a) : node);
  }

  /** {@code rel} with each node, its inputs rewritten first, replaced by {@code rewrite}'s answer. */
  static LogicalRel eachNode(LogicalRel rel, UnaryOperator<LogicalRel> rewrite) {
    return rewrite.apply(switch (rel) {
      case LogicalRel.Scan scan -> scan;
      case LogicalRel.Filter filter -> new LogicalRel.Filter(eachNode(filter.input(), rewrite), filter.condition());
      case LogicalRel.Project project -> new LogicalRel.Project(eachNode(project.input(), rewrite), project.outputs());
      case LogicalRel.Aggregation a -> new LogicalRel.Aggregation(eachNode(a.input(), rewrite), a.keys(), a.measures());
      case LogicalRel.Sort sort -> new LogicalRel.Sort(eachNode(sort.input(), rewrite), sort.keys());
      case LogicalRel.Limit limit -> new LogicalRel.Limit(eachNode(limit.input(), rewrite), limit.rows());
      case LogicalRel.Join join -> new LogicalRel.Join(join.kind(), eachNode(join.left(), rewrite),
          eachNode(join.right(), rewrite), join.leftKeys(), join.rightKeys());
      case LogicalRel.Cross cross -> new LogicalRel.Cross(eachNode(cross.left(), rewrite),
          eachNode(cross.right(), rewrite));
      case LogicalRel.Shared shared -> new LogicalRel.Shared(shared.id(), eachNode(shared.input(), rewrite));
    });
  }

  /** {@code rel} projected onto {@code columns}, columns of it, in that order. */
  static LogicalRel sameColumns(LogicalRel rel, List<String> columns) {
    return new LogicalRel.Project(rel, columns.stream().map(name -> Expr.col(name).as(name)).toList());
  }
}
