package dev.memwall.substrait.logical;

import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A logical plan as indented text, one node a line, inputs below their parent; a {@link
 * LogicalRel.Shared} relation's input is written below its first reader only.
 */
public final class Explain {
  private Explain() {}

  public static String of(LogicalRel rel) {
    StringBuilder text = new StringBuilder();
    append(rel, 0, text, new HashSet<>());
    return text.toString();
  }

  private static void append(LogicalRel rel, int depth, StringBuilder text, Set<Integer> written) {
    text.append("  ".repeat(depth));
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
      case LogicalRel.Shared shared -> text.append("shared #").append(shared.id())
          .append(written.contains(shared.id()) ? " (as above)" : "");
    }
    text.append('\n');
    switch (rel) {
      case LogicalRel.Scan scan -> { }
      case LogicalRel.Filter filter -> append(filter.input(), depth + 1, text, written);
      case LogicalRel.Project project -> append(project.input(), depth + 1, text, written);
      case LogicalRel.Aggregation a -> append(a.input(), depth + 1, text, written);
      case LogicalRel.Sort sort -> append(sort.input(), depth + 1, text, written);
      case LogicalRel.Limit limit -> append(limit.input(), depth + 1, text, written);
      case LogicalRel.Join join -> {
        append(join.left(), depth + 1, text, written);
        append(join.right(), depth + 1, text, written);
      }
      case LogicalRel.Cross cross -> {
        append(cross.left(), depth + 1, text, written);
        append(cross.right(), depth + 1, text, written);
      }
      case LogicalRel.Shared shared -> {
        if (written.add(shared.id())) {
          append(shared.input(), depth + 1, text, written);
        }
      }
    }
  }
}
