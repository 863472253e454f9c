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
 * Where a subquery's semi or anti join goes: on the input of the enclosing query's join region
 * that has all of its key columns, not above the whole region (TPC-H Q18: {@code o_orderkey IN
 * (...)} keeps the 57 large orders before they are joined with customer and lineitem, instead of
 * joining all of them first). A semi or anti join keeps or drops each row by its key columns
 * alone, and a cross product, an inner join or a filter keeps a row only if it keeps the rows of
 * its inputs that it is made of, so dropping an input's rows first drops the same result rows; a
 * project that passes the key columns on unchanged keeps its rows one for one. Outer joins and
 * everything else are not looked into. The conditions of the filters passed on the way down that
 * read only the input the join goes on are applied to it below the join as well (they stay where
 * they were too), so that the join does not probe rows they drop. A cross product with one row (an
 * uncorrelated scalar subquery's value) is not looked into: the conditions on that value are
 * often the selective ones (TPC-H Q22's {@code c_acctbal > (select avg ...)}). Stateless.
 */
final class SemiJoinPlacement {
  private SemiJoinPlacement() {}

  /**
   * {@code rel} with the rows joined ({@code kind} SEMI or ANTI) with {@code build} on {@code keys
   * = buildKeys}, the join placed as deep as the keys allow.
   */
  static LogicalRel place(LogicalRel rel, JoinKind kind, LogicalRel build, List<String> keys, List<String> buildKeys) {
    if (kind != JoinKind.SEMI && kind != JoinKind.ANTI) {
      throw new IllegalArgumentException("only semi and anti joins are placed, not " + kind);
    }
    return place(rel, kind, build, keys, buildKeys, List.of());
  }

  /** As above, {@code above} the conditions of the filters passed on the way down. */
  private static LogicalRel place(LogicalRel rel, JoinKind kind, LogicalRel build, List<String> keys,
      List<String> buildKeys, List<Expr> above) {
    return switch (rel) {
      case LogicalRel.Filter filter -> new LogicalRel.Filter(place(filter.input(), kind, build, keys, buildKeys,
          concat(above, Exprs.conjuncts(filter.condition()))), filter.condition());
      case LogicalRel.Project project when passes(project, keys) -> new LogicalRel.Project(place(project.input(), kind,
          build, keys, buildKeys, List.of()), project.outputs());
      case LogicalRel.Cross cross when oneRow(cross.left()) || oneRow(cross.right()) ->
          onInput(rel, kind, build, keys, buildKeys, above); // the conditions on the crossed-in value stay below
      case LogicalRel.Cross cross when cross.left().columns().containsAll(keys) ->
          new LogicalRel.Cross(place(cross.left(), kind, build, keys, buildKeys, above), cross.right());
      case LogicalRel.Cross cross when cross.right().columns().containsAll(keys) ->
          new LogicalRel.Cross(cross.left(), place(cross.right(), kind, build, keys, buildKeys, above));
      case LogicalRel.Join join when join.kind() == JoinKind.INNER && join.left().columns().containsAll(keys) ->
          new LogicalRel.Join(JoinKind.INNER, place(join.left(), kind, build, keys, buildKeys, above), join.right(),
              join.leftKeys(), join.rightKeys());
      case LogicalRel.Join join when join.kind() == JoinKind.INNER && join.right().columns().containsAll(keys) ->
          new LogicalRel.Join(JoinKind.INNER, join.left(), place(join.right(), kind, build, keys, buildKeys, above),
              join.leftKeys(), join.rightKeys());
      case LogicalRel.Cross cross -> new LogicalRel.Join(kind, rel, build, keys, buildKeys);
      case LogicalRel.Join join when join.kind() == JoinKind.INNER -> new LogicalRel.Join(kind, rel, build, keys,
          buildKeys);
      default -> onInput(rel, kind, build, keys, buildKeys, above);
    };
  }

  /** The join on {@code rel}, below it the conditions of {@code above} that read only {@code rel}'s columns. */
  private static LogicalRel onInput(LogicalRel rel, JoinKind kind, LogicalRel build, List<String> keys,
      List<String> buildKeys, List<Expr> above) {
    // the filters above that read only this input apply here too, so the join probes their rows only
    Set<String> columns = new HashSet<>(rel.columns());
    List<Expr> own = above.stream().filter(c -> columns.containsAll(Exprs.columns(c))).toList();
    return new LogicalRel.Join(kind, own.isEmpty() ? rel : new LogicalRel.Filter(rel, Exprs.and(own)), build, keys,
        buildKeys);
  }

  /** Whether {@code rel} is certainly one row: a global aggregation, possibly projected. */
  static boolean oneRow(LogicalRel rel) {
    return rel instanceof LogicalRel.Aggregation aggregation && aggregation.keys().isEmpty()
        || rel instanceof LogicalRel.Project project && oneRow(project.input());
  }

  private static List<Expr> concat(List<Expr> first, List<Expr> second) {
    List<Expr> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }

  /** Whether {@code project} passes each of {@code keys} on from its input unchanged, under its own name. */
  private static boolean passes(LogicalRel.Project project, List<String> keys) {
    return keys.stream().allMatch(key -> project.input().columns().contains(key) && project.outputs().stream()
        .anyMatch(output -> output.name().equals(key) && output.expr() instanceof Expr.ColumnRef ref
            && ref.name().equals(key)));
  }
}
