package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Aggregating before an inner join that only looks up determined columns: TPC-H Q10 groups
 * {@code lineitem x orders x customer x nation} by customer and nation columns and sums lineitem's;
 * customer is joined on its key {@code c_custkey = o_custkey} and nation on its key, so each line
 * meets one customer and nation at most, and the sums can be taken per {@code o_custkey} first,
 * customer and nation joined to the groups, not to every line:
 *
 * <pre>
 * aggregate keys R, L measures m          =&gt;   project (the same columns)
 *   [project]                                    inner join on F = U
 *     inner joins of rest and lookup               aggregate keys R, F measures m
 *       (the lookup joined on F = U)                 [project: the outputs reading rest, F]
 *                                                      inner joins of rest
 *                                                  inner joins of lookup
 * </pre>
 *
 * <p>The inner joins directly under the aggregation (and a project) are taken apart into their
 * inputs and key pairs. A lookup is an input that reads no filter (a scan, possibly projected: its
 * join drops no more rows than a foreign key lookup would, so aggregating first does not aggregate
 * rows the join would have dropped), with every input that reads no filter and is joined only to
 * the lookup's inputs (nation, joined only to customer). The rest keep their joins, as do the
 * lookup's inputs among themselves; the key pairs between the two, F of the rest and U of the
 * lookup, join them. It applies when: the lookup is unique on U ({@code KeyDependencies}, from the
 * declared keys); the measures read only the rest; each grouping key either reads only the rest or
 * is a lookup column passed on by name (L); and the grouping keys determine F: each column of F is
 * determined by the rest's grouping columns, or its partner in U is a grouping key. Then each group
 * of the rewritten aggregation meets at most one lookup row, the one its F names, whose columns are
 * the group's L: the groups and measures are the original ones, and a group without a lookup row is
 * dropped as its rows were. A project between the aggregation and the joins may compute from either
 * side, each output from one side only. The rewritten aggregation is tried again. Stateless and
 * thread-safe.
 */
public final class AggregateBeforeLookup {
  private AggregateBeforeLookup() {}

  /**
   * {@code rel} with each aggregation of that shape, at any depth, rewritten; the same rows.
   *
   * @param keys the keys declared for a scan's table (lists of the table's column names)
   */
  public static LogicalRel rewrite(LogicalRel rel, Function<LogicalRel.Scan, List<List<String>>> keys) {
    KeyDependencies dependencies = new KeyDependencies(keys);
    return Rebuild.bottomUp(rel, a -> lift(a, dependencies));
  }

  private static LogicalRel lift(LogicalRel.Aggregation a, KeyDependencies dependencies) {
    LogicalRel.Project project = a.input() instanceof LogicalRel.Project p ? p : null;
    LogicalRel below = project == null ? a.input() : project.input();
    if (!(below instanceof LogicalRel.Join join) || join.kind() != JoinKind.INNER || a.keys().isEmpty()) {
      return a; // a global aggregation has its one row even where the join has none
    }
    List<LogicalRel> leaves = new ArrayList<>();
    List<String[]> edges = new ArrayList<>();
    flatten(join, leaves, edges);
    for (LogicalRel seed : leaves) {
      if (readsFilter(seed)) {
        continue;
      }
      Set<LogicalRel> lookups = lookups(seed, leaves, edges);
      if (lookups.size() == leaves.size()) {
        continue;
      }
      JoinSplit rest = prune(join, leaf -> !lookups.contains(leaf));
      JoinSplit lookup = prune(join, lookups::contains);
      if (rest == null || lookup == null) {
        continue;
      }
      Set<String> lookupColumns = new HashSet<>(lookup.rel().columns());
      List<String> restKeys = new ArrayList<>();
      List<String> lookupKeys = new ArrayList<>();
      for (String[] edge : edges) {
        boolean leftInLookup = lookupColumns.contains(edge[0]);
        if (leftInLookup != lookupColumns.contains(edge[1])) {
          restKeys.add(leftInLookup ? edge[1] : edge[0]);
          lookupKeys.add(leftInLookup ? edge[0] : edge[1]);
        }
      }
      LogicalRel lifted = lift(a, project, rest.rel(), restKeys, lookup.rel(), lookupKeys, dependencies);
      if (lifted != null) {
        return lifted;
      }
    }
    return a;
  }

  /** The leaves of a tree of inner joins (its inputs that are not inner joins) and its key pairs. */
  static void flatten(LogicalRel rel, List<LogicalRel> leaves, List<String[]> edges) {
    if (rel instanceof LogicalRel.Join join && join.kind() == JoinKind.INNER) {
      flatten(join.left(), leaves, edges);
      flatten(join.right(), leaves, edges);
      for (int i = 0; i < join.leftKeys().size(); i++) {
        edges.add(new String[] {join.leftKeys().get(i), join.rightKeys().get(i)});
      }
    } else {
      leaves.add(rel);
    }
  }

  /**
   * {@code seed} and every leaf that reads no filter and is joined only to those already taken, as
   * TPC-H's nation is joined only to customer: the lookup side, all lookups of lookups.
   */
  private static Set<LogicalRel> lookups(LogicalRel seed, List<LogicalRel> leaves, List<String[]> edges) {
    Set<LogicalRel> taken = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    taken.add(seed);
    Set<String> takenColumns = new HashSet<>(seed.columns());
    boolean grew = true;
    while (grew) {
      grew = false;
      for (LogicalRel leaf : leaves) {
        if (taken.contains(leaf) || readsFilter(leaf)) {
          continue;
        }
        Set<String> columns = new HashSet<>(leaf.columns());
        boolean joined = false;
        boolean onlyToTaken = true;
        for (String[] edge : edges) {
          for (int side = 0; side < 2; side++) {
            if (columns.contains(edge[side])) {
              joined = true;
              onlyToTaken &= takenColumns.contains(edge[1 - side]);
            }
          }
        }
        if (joined && onlyToTaken) {
          taken.add(leaf);
          takenColumns.addAll(columns);
          grew = true;
        }
      }
    }
    return taken;
  }

  /** A tree of inner joins cut down to some of its leaves. */
  private record JoinSplit(LogicalRel rel) {}

  /**
   * {@code rel}, a tree of inner joins, with only the leaves {@code keep} accepts: a join with one
   * side left out is its other side, and a join with both kept keeps the key pairs within them.
   * Null when no leaf is kept, or when a join keeps both sides but none of its key pairs (that
   * would be a cross product).
   */
  private static JoinSplit prune(LogicalRel rel, java.util.function.Predicate<LogicalRel> keep) {
    if (!(rel instanceof LogicalRel.Join join && join.kind() == JoinKind.INNER)) {
      return keep.test(rel) ? new JoinSplit(rel) : null;
    }
    JoinSplit left = prune(join.left(), keep);
    JoinSplit right = prune(join.right(), keep);
    if (left == null || right == null) {
      return left == null ? right : left;
    }
    Set<String> leftColumns = new HashSet<>(left.rel().columns());
    Set<String> rightColumns = new HashSet<>(right.rel().columns());
    List<String> leftKeys = new ArrayList<>();
    List<String> rightKeys = new ArrayList<>();
    for (int i = 0; i < join.leftKeys().size(); i++) {
      if (leftColumns.contains(join.leftKeys().get(i)) && rightColumns.contains(join.rightKeys().get(i))) {
        leftKeys.add(join.leftKeys().get(i));
        rightKeys.add(join.rightKeys().get(i));
      }
    }
    if (leftKeys.size() != join.leftKeys().size()) {
      return null; // a pair reaching a leaf left out: keep such trees as they are
    }
    return new JoinSplit(new LogicalRel.Join(JoinKind.INNER, left.rel(), right.rel(), leftKeys, rightKeys));
  }

  /** The rewrite with {@code rest} and {@code lookup} joined on their keys, or null where it does not apply. */
  private static LogicalRel lift(LogicalRel.Aggregation a, LogicalRel.Project project, LogicalRel rest,
      List<String> restKeys, LogicalRel lookup, List<String> lookupKeys, KeyDependencies dependencies) {
    if (restKeys.isEmpty() || !dependencies.unique(lookup, new HashSet<>(lookupKeys))) {
      return null;
    }
    Set<String> restColumns = new HashSet<>(rest.columns());
    Set<String> lookupColumns = new HashSet<>(lookup.columns());
    List<NamedExpr> restOutputs = new ArrayList<>();
    Set<String> restNames = new HashSet<>(restColumns);
    Set<String> lookupNames = new HashSet<>(lookupColumns);
    Set<String> restPassed = new HashSet<>(); // the rest's columns the project passes on by name
    if (project != null) {
      restNames.clear();
      lookupNames.clear();
      for (NamedExpr output : project.outputs()) {
        Set<String> read = Exprs.columns(output.expr());
        if (restColumns.containsAll(read)) {
          restOutputs.add(output);
          restNames.add(output.name());
          if (output.expr() instanceof Expr.ColumnRef ref && ref.name().equals(output.name())) {
            restPassed.add(ref.name());
          }
        } else if (output.expr() instanceof Expr.ColumnRef ref && ref.name().equals(output.name())
            && lookupColumns.contains(ref.name())) {
          lookupNames.add(output.name());
        } else {
          return null;
        }
      }
    } else {
      restPassed.addAll(restColumns);
    }
    for (Aggregate measure : a.measures()) {
      if (measure.argument() != null && !restNames.containsAll(Exprs.columns(measure.argument()))) {
        return null;
      }
    }
    List<NamedExpr> keys = new ArrayList<>();
    Set<String> grouped = new HashSet<>(); // the rest's columns grouped by by name, and the lookup columns
    for (NamedExpr key : a.keys()) {
      if (restNames.containsAll(Exprs.columns(key.expr()))) {
        keys.add(key);
        if (key.expr() instanceof Expr.ColumnRef ref && restPassed.contains(ref.name())) {
          grouped.add(ref.name());
        }
      } else if (key.expr() instanceof Expr.ColumnRef ref && ref.name().equals(key.name())
          && lookupNames.contains(ref.name())) {
        grouped.add(ref.name());
      } else {
        return null;
      }
    }
    Set<String> determined = dependencies.closure(rest, grouped);
    for (int i = 0; i < restKeys.size(); i++) {
      String restKey = restKeys.get(i);
      if (!determined.contains(restKey) && !grouped.contains(lookupKeys.get(i))) {
        return null;
      }
      if (keys.stream().anyMatch(key -> key.name().equals(restKey))) {
        if (keys.stream().noneMatch(key -> key.name().equals(restKey) && key.expr().equals(Expr.col(restKey)))) {
          return null; // the name is taken by something else
        }
        continue;
      }
      if (a.columns().contains(restKey) || restNames.contains(restKey) && !restPassed.contains(restKey)) {
        return null;
      }
      keys.add(Expr.col(restKey).as(restKey));
      if (project != null && !restNames.contains(restKey)) {
        restOutputs.add(Expr.col(restKey).as(restKey));
        restNames.add(restKey);
      }
    }
    LogicalRel input = project == null ? rest : new LogicalRel.Project(rest, restOutputs);
    LogicalRel early = lift(new LogicalRel.Aggregation(input, keys, a.measures()), dependencies);
    LogicalRel joined = new LogicalRel.Join(JoinKind.INNER, early, lookup, restKeys, lookupKeys);
    return Rebuild.sameColumns(joined, a.columns());
  }

  /** Whether {@code rel} may drop rows of its table: anything but a scan, possibly projected. */
  private static boolean readsFilter(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Scan scan -> false;
      case LogicalRel.Project project -> readsFilter(project.input());
      default -> true;
    };
  }
}
