package dev.memwall.substrait.logical;

import java.util.stream.Collectors;

/**
 * A logical plan as indented text, one node a line, inputs below their parent. An inner join whose
 * build side reads its probe side again (the very node, which the lowering materializes once) says
 * so, and the second read is one line.
 */
public final class Explain {
  private Explain() {}

  public static String of(LogicalRel rel) {
    StringBuilder text = new StringBuilder();
    append(rel, 0, text, java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
    return text.toString();
  }

  private static void append(LogicalRel rel, int depth, StringBuilder text, java.util.Set<LogicalRel> shared) {
    text.append("  ".repeat(depth));
    if (shared.contains(rel)) {
      text.append("the join's probe side, read again\n");
      return;
    }
    if (rel instanceof LogicalRel.Join join && !readAgain(join).isEmpty()) {
      text.append("(probe side materialized once) ");
    }
    switch (rel) {
      case LogicalRel.Scan scan -> text.append("scan ").append(scan.table()).append(' ').append(scan.columns());
      case LogicalRel.Filter filter -> text.append("filter ").append(filter.condition());
      case LogicalRel.Project project -> text.append("project ").append(project.outputs().stream()
          .map(o -> o.name() + "=" + o.expr()).collect(Collectors.joining(", ")));
      case LogicalRel.Aggregation a -> text.append("aggregate keys ").append(a.keys()).append(" measures ")
          .append(a.measures());
      case LogicalRel.Sort sort -> text.append("sort ").append(sort.keys());
      case LogicalRel.Limit limit -> text.append("limit ").append(limit.rows());
      case LogicalRel.Join join -> text.append(join.kind().name().toLowerCase(java.util.Locale.ROOT))
          .append(" join on ").append(join.leftKeys()).append(" = ").append(join.rightKeys());
      case LogicalRel.Cross cross -> text.append("cross");
    }
    text.append('\n');
    switch (rel) {
      case LogicalRel.Scan scan -> { }
      case LogicalRel.Filter filter -> append(filter.input(), depth + 1, text, shared);
      case LogicalRel.Project project -> append(project.input(), depth + 1, text, shared);
      case LogicalRel.Aggregation a -> append(a.input(), depth + 1, text, shared);
      case LogicalRel.Sort sort -> append(sort.input(), depth + 1, text, shared);
      case LogicalRel.Limit limit -> append(limit.input(), depth + 1, text, shared);
      case LogicalRel.Join join -> {
        append(join.left(), depth + 1, text, shared);
        java.util.List<LogicalRel> again = readAgain(join);
        shared.addAll(again);
        append(join.right(), depth + 1, text, shared);
        again.forEach(shared::remove);
      }
      case LogicalRel.Cross cross -> {
        append(cross.left(), depth + 1, text, shared);
        append(cross.right(), depth + 1, text, shared);
      }
    }
  }

  private static java.util.List<LogicalRel> readAgain(LogicalRel.Join join) {
    return join.kind() == LogicalRel.JoinKind.INNER && SharedReads.readIn(join.right(), join.left())
        ? java.util.List.of(join.left()) : java.util.List.of();
  }
}
