package dev.memwall.substrait;

import dev.memwall.core.expr.Expr;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether every row of an enclosing query carries, in its correlated columns, the values of a row of
 * its subquery, as in TPC-H Q21: each late line {@code l1} is itself one of the lines {@code l2} of
 * its order, and one of the late lines {@code l3} of its order. Then a correlated comparison can be
 * decided from the group alone ({@link CorrelatedComparison}): the outer row's value is among its
 * group's values.
 *
 * <p>It holds when the subquery is a scan of a table under filters only, the outer columns are read
 * unchanged from one scan of the same table (followed down as {@link DeclaredNotNull} does: through
 * filters, sorts, limits, shared relations, projections passing the column on under its name, cross
 * products and the sides of inner joins, the probe side of semi, anti and left outer joins), each
 * inner column is the same table column as its outer one, and every conjunct of the subquery's
 * filters is, on the same table columns, one of the conjuncts of the filters the outer rows passed
 * on the way down from the enclosing relation to that scan. Such an outer row is then a row of the
 * table that the subquery's conditions keep. A condition the outer rows passed in another form (say
 * {@code a < b} against the subquery's {@code b > a}) is not recognized, which only leaves the
 * general plan. Stateless.
 */
final class OuterRowInSubquery {
  private OuterRowInSubquery() {}

  /**
   * Whether every row of {@code outer} has, in {@code outerColumns}, the values some row of {@code
   * subquery} has in {@code innerColumns} (pairwise, as many of each).
   */
  static boolean holds(LogicalRel outer, List<String> outerColumns, LogicalRel subquery, List<String> innerColumns) {
    if (outerColumns.isEmpty() || outerColumns.size() != innerColumns.size()) {
      throw new IllegalArgumentException("pairs of columns needed: " + outerColumns + " and " + innerColumns);
    }
    List<Expr> required = new ArrayList<>();
    LogicalRel below = subquery;
    while (below instanceof LogicalRel.Filter filter) {
      required.addAll(Exprs.conjuncts(filter.condition()));
      below = filter.input();
    }
    if (!(below instanceof LogicalRel.Scan inner)) {
      return false;
    }
    Origin origin = origin(outer, outerColumns.getFirst(), List.of());
    if (origin == null || origin.scan().source() != inner.source() || !origin.scan().table().equals(inner.table())) {
      return false;
    }
    LogicalRel.Scan scan = origin.scan();
    for (int i = 0; i < outerColumns.size(); i++) {
      Origin other = origin(outer, outerColumns.get(i), List.of());
      if (other == null || other.scan() != scan || !inner.columns().contains(innerColumns.get(i))
          || !scan.tableColumn(outerColumns.get(i)).equals(inner.tableColumn(innerColumns.get(i)))) {
        return false;
      }
    }
    Set<Expr> passed = new HashSet<>();
    for (Expr condition : origin.conditions()) {
      if (scan.columns().containsAll(Exprs.columns(condition))) {
        passed.add(Exprs.renamed(condition, storedNames(scan)));
      }
    }
    Map<String, String> innerNames = storedNames(inner);
    return required.stream().allMatch(condition -> inner.columns().containsAll(Exprs.columns(condition))
        && passed.contains(Exprs.renamed(condition, innerNames)));
  }

  /** The scan a column is read from unchanged, and the conjuncts of the filters passed on the way to it. */
  private record Origin(LogicalRel.Scan scan, List<Expr> conditions) {}

  /** Where {@code rel}'s {@code column} is read from, {@code above} the conditions passed so far; null if not from a scan. */
  private static Origin origin(LogicalRel rel, String column, List<Expr> above) {
    return switch (rel) {
      case LogicalRel.Scan scan -> scan.columns().contains(column) ? new Origin(scan, above) : null;
      case LogicalRel.Filter filter -> origin(filter.input(), column, with(above, Exprs.conjuncts(filter.condition())));
      case LogicalRel.Sort sort -> origin(sort.input(), column, above);
      case LogicalRel.Limit limit -> origin(limit.input(), column, above);
      case LogicalRel.Shared shared -> origin(shared.input(), column, above);
      case LogicalRel.Project project -> passes(project, column)
          ? origin(project.input(), column, above.stream().filter(c -> passesAll(project, c)).toList()) : null;
      case LogicalRel.Aggregation aggregation -> null;
      case LogicalRel.Cross cross -> side(cross.left(), cross.right(), column, above);
      case LogicalRel.Join join -> join.kind() == JoinKind.INNER ? side(join.left(), join.right(), column, above)
          : join.left().columns().contains(column) ? origin(join.left(), column, above) : null;
    };
  }

  private static Origin side(LogicalRel left, LogicalRel right, String column, List<Expr> above) {
    return left.columns().contains(column) ? origin(left, column, above)
        : right.columns().contains(column) ? origin(right, column, above) : null;
  }

  /** Whether {@code project} passes its input's {@code column} on unchanged under the same name. */
  private static boolean passes(LogicalRel.Project project, String column) {
    return project.input().columns().contains(column) && project.outputs().stream().anyMatch(output ->
        output.name().equals(column) && output.expr() instanceof Expr.ColumnRef ref && ref.name().equals(column));
  }

  private static boolean passesAll(LogicalRel.Project project, Expr condition) {
    return Exprs.columns(condition).stream().allMatch(column -> passes(project, column));
  }

  /** Each of {@code scan}'s columns to the table column it reads. */
  private static Map<String, String> storedNames(LogicalRel.Scan scan) {
    Map<String, String> names = new HashMap<>();
    for (int i = 0; i < scan.columns().size(); i++) {
      names.put(scan.columns().get(i), scan.tableColumns().get(i));
    }
    return names;
  }

  private static List<Expr> with(List<Expr> first, List<Expr> second) {
    List<Expr> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }
}
