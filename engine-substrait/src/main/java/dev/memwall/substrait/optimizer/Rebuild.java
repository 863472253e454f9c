package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntSupplier;
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
    return rewrite.apply(withInputs(rel, input -> eachNode(input, rewrite)));
  }

  /** {@code rel} over its inputs each replaced by {@code input}'s answer for it; a scan as it is. */
  static LogicalRel withInputs(LogicalRel rel, UnaryOperator<LogicalRel> input) {
    return switch (rel) {
      case LogicalRel.Scan scan -> scan;
      case LogicalRel.Filter filter -> new LogicalRel.Filter(input.apply(filter.input()), filter.condition());
      case LogicalRel.Project project -> new LogicalRel.Project(input.apply(project.input()), project.outputs());
      case LogicalRel.Aggregation a -> new LogicalRel.Aggregation(input.apply(a.input()), a.keys(), a.measures());
      case LogicalRel.Sort sort -> new LogicalRel.Sort(input.apply(sort.input()), sort.keys());
      case LogicalRel.Limit limit -> new LogicalRel.Limit(input.apply(limit.input()), limit.rows());
      case LogicalRel.Join join -> new LogicalRel.Join(join.kind(), input.apply(join.left()), input.apply(join.right()),
          join.leftKeys(), join.rightKeys());
      case LogicalRel.Cross cross -> new LogicalRel.Cross(input.apply(cross.left()), input.apply(cross.right()));
      case LogicalRel.Shared shared -> new LogicalRel.Shared(shared.id(), input.apply(shared.input()));
    };
  }

  /** {@code rel} as a shared relation with a new id from {@code ids}, or itself where it is one already. */
  static LogicalRel shared(LogicalRel rel, IntSupplier ids) {
    return rel instanceof LogicalRel.Shared ? rel : new LogicalRel.Shared(ids.getAsInt(), rel);
  }

  /** {@code rel} projected onto {@code columns}, columns of it, in that order. */
  static LogicalRel sameColumns(LogicalRel rel, List<String> columns) {
    return new LogicalRel.Project(rel, columns.stream().map(name -> Expr.col(name).as(name)).toList());
  }
}
