package dev.memwall.substrait.logical;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where a plan reads one of its nodes again: the node itself, found by identity (equal nodes that
 * are not the same one are separate reads). Stateless and thread-safe.
 */
public final class SharedReads {
  private SharedReads() {}

  /** Whether {@code node} (the very object) is {@code rel} or one of its inputs at any depth. */
  public static boolean readIn(LogicalRel rel, LogicalRel node) {
    return rel == node || inputs(rel).stream().anyMatch(input -> readIn(input, node));
  }

  /**
   * The columns of {@code node} that the nodes of {@code rel} reading it use: a project's inputs, a
   * semi or anti join's right keys, and all of them for any other reader.
   */
  public static Set<String> columns(LogicalRel rel, LogicalRel node) {
    Set<String> read = new HashSet<>();
    collect(rel, node, read);
    return read;
  }

  private static void collect(LogicalRel rel, LogicalRel node, Set<String> read) {
    if (rel == node) {
      read.addAll(node.columns());
      return;
    }
    if (rel instanceof LogicalRel.Project project && project.input() == node) {
      project.outputs().forEach(output -> read.addAll(Exprs.columns(output.expr())));
      return;
    }
    if (rel instanceof LogicalRel.Join join && join.right() == node
        && (join.kind() == LogicalRel.JoinKind.SEMI || join.kind() == LogicalRel.JoinKind.ANTI)) {
      read.addAll(join.rightKeys()); // a semi or anti join reads only the keys of its right side
      collect(join.left(), node, read);
      return;
    }
    inputs(rel).forEach(input -> collect(input, node, read));
  }

  private static List<LogicalRel> inputs(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Scan scan -> List.of();
      case LogicalRel.Filter filter -> List.of(filter.input());
      case LogicalRel.Project project -> List.of(project.input());
      case LogicalRel.Aggregation a -> List.of(a.input());
      case LogicalRel.Sort sort -> List.of(sort.input());
      case LogicalRel.Limit limit -> List.of(limit.input());
      case LogicalRel.Join join -> List.of(join.left(), join.right());
      case LogicalRel.Cross cross -> List.of(cross.left(), cross.right());
    };
  }
}
