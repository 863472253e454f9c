package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * A table reduced by a semi join in one place and joined to the same input in another is reduced
 * once, for both: TPC-H Q2's decorrelated subquery takes the minimum cost over the partsupp rows
 * semi joined to the chosen parts, and the outer query joins partsupp to those same parts, so both
 * read the semi join's few rows instead of all of partsupp twice.
 *
 * <pre>
 * ... inner joins and filters over L, Q, ... (L joined to Q on pairs P)     ... the same over X, Q, ...
 * ... semi join L', Q on P' (L' a scan of L's table renamed, P' = P)    =&gt;   ... X renamed as L'
 *                                                                          X: shared semi join L, Q on P
 * </pre>
 *
 * <p>It applies to a tree of inner joins and filters, one of whose leaves is a scan L and another
 * a node Q, where the plan elsewhere has a semi join of L' with a node equal to Q, L' reading L's
 * table and columns under other names, and every pair of that semi join, read with L's names, is a
 * pair of the tree's joins between L and Q. The tree keeps the rows of the product of its leaves
 * where all its joins' pairs and filters hold, so a row of L without a partner in Q on those pairs
 * is in none of them; replacing L by X, the semi join of L and Q (each row of L with a partner,
 * once), leaves the tree's rows unchanged. The semi join elsewhere is X with its columns renamed.
 * Nulls never match in either join; a key repeated in Q keeps an L row once in the semi join and
 * repeats it in the tree as before.
 *
 * <p>X is a {@link LogicalRel.Shared} relation, shared only where its estimate is at most half of
 * L's rows, since holding a large part of L costs more than reading L again. Q, read by both X and
 * the tree, is shared too where it is not a scan and is estimated at most half the rows of the
 * largest table it reads (Q2's chosen parts, a few rows of part filtered twice otherwise). Nodes
 * under a shared relation already are left alone, and so is a node the plan holds at two places.
 * Stateless and thread-safe when the estimator is.
 */
public final class SharedSemiJoin {
  private SharedSemiJoin() {}

  /**
   * {@code rel} with each semi join of that kind reading the rows its table is reduced to once; the same rows.
   *
   * @param ids gives each new shared relation its id
   */
  public static LogicalRel rewrite(LogicalRel rel, CardinalityEstimator estimator, IntSupplier ids) {
    LogicalRel at = rel;
    while (true) {
      Map<LogicalRel, LogicalRel> replaced = shareFirst(at, estimator, ids);
      if (replaced.isEmpty()) {
        return at;
      }
      at = CommonAggregations.replace(at, replaced);
    }
  }

  /** The replacements of the first semi join and leaf that fit, or none. */
  private static Map<LogicalRel, LogicalRel> shareFirst(LogicalRel root, CardinalityEstimator estimator,
      IntSupplier ids) {
    Map<LogicalRel, Integer> held = new IdentityHashMap<>();
    List<LogicalRel.Join> semiJoins = new ArrayList<>();
    List<LogicalRel> trees = new ArrayList<>();
    collect(root, held, semiJoins, trees, false, false);
    for (LogicalRel.Join semi : semiJoins) {
      if (held.get(semi) != 1 || !(semi.left() instanceof LogicalRel.Scan copy)) {
        continue;
      }
      for (LogicalRel tree : trees) {
        List<LogicalRel> leaves = new ArrayList<>();
        List<String[]> edges = new ArrayList<>();
        flatten(tree, leaves, edges);
        if (leaves.stream().noneMatch(semi.right()::equals)) {
          continue;
        }
        Set<String> qColumns = new HashSet<>(semi.right().columns());
        for (LogicalRel leaf : leaves) {
          if (leaf instanceof LogicalRel.Scan l && held.get(l) == 1) {
            Map<String, String> names = renaming(l, copy);
            List<String> lKeys = names == null ? null : keys(semi, names, edges, qColumns);
            if (lKeys != null) {
              LogicalRel x = new LogicalRel.Join(JoinKind.SEMI, l, semi.right(), lKeys, semi.rightKeys());
              if (estimator.of(x).rows() <= SharedAggregateInput.MOST_SHARED * estimator.of(l).rows()) {
                LogicalRel q = leaves.stream().filter(semi.right()::equals).findFirst().orElseThrow();
                return shared(l, q, held.get(q) == 1 && pays(q, estimator), semi, names, lKeys, ids);
              }
            }
          }
        }
      }
    }
    return Map.of();
  }

  /**
   * L read as the shared semi join X, and the semi join elsewhere as X renamed to L''s names; where
   * {@code shareQ}, the tree's Q and X's read Q as one shared relation.
   */
  private static Map<LogicalRel, LogicalRel> shared(LogicalRel.Scan l, LogicalRel q, boolean shareQ,
      LogicalRel.Join semi, Map<String, String> names, List<String> lKeys, IntSupplier ids) {
    Map<LogicalRel, LogicalRel> replaced = new IdentityHashMap<>();
    LogicalRel right = semi.right();
    if (shareQ) {
      right = new LogicalRel.Shared(ids.getAsInt(), semi.right());
      replaced.put(q, right);
    }
    LogicalRel.Shared shared = new LogicalRel.Shared(ids.getAsInt(),
        new LogicalRel.Join(JoinKind.SEMI, l, right, lKeys, semi.rightKeys()));
    List<NamedExpr> renamed = new ArrayList<>();
    for (String column : l.columns()) {
      renamed.add(Expr.col(column).as(names.get(column)));
    }
    replaced.put(l, shared);
    replaced.put(semi, new LogicalRel.Project(shared, renamed));
    return replaced;
  }

  /**
   * Whether Q, read by the tree and by X, pays to be computed once: not a scan or a shared relation
   * already, and estimated at most half the rows of the largest table it reads.
   */
  private static boolean pays(LogicalRel q, CardinalityEstimator estimator) {
    return !(q instanceof LogicalRel.Scan) && !(q instanceof LogicalRel.Shared)
        && estimator.of(q).rows() <= SharedAggregateInput.MOST_SHARED * RepeatedJoinInput.largestTable(q, estimator);
  }

  /**
   * L's columns paired by {@code semi}, in its order, where each of its pairs, read with L's names
   * ({@code names} maps L's to L''s), is a pair of {@code edges}; null otherwise.
   */
  private static List<String> keys(LogicalRel.Join semi, Map<String, String> names, List<String[]> edges,
      Set<String> qColumns) {
    Map<String, String> back = new HashMap<>();
    names.forEach((column, copy) -> back.put(copy, column));
    List<String> lKeys = new ArrayList<>();
    for (int i = 0; i < semi.leftKeys().size(); i++) {
      String l = back.get(semi.leftKeys().get(i));
      String q = semi.rightKeys().get(i);
      if (l == null || !qColumns.contains(q) || edges.stream().noneMatch(edge -> edge[0].equals(l) && edge[1].equals(q)
          || edge[0].equals(q) && edge[1].equals(l))) {
        return null;
      }
      lKeys.add(l);
    }
    return lKeys;
  }

  /**
   * Counts in {@code held} each node's places in the plan, and adds the semi joins and the roots of
   * trees of inner joins and filters, outside shared relations.
   */
  private static void collect(LogicalRel rel, Map<LogicalRel, Integer> held, List<LogicalRel.Join> semiJoins,
      List<LogicalRel> trees, boolean shared, boolean inTree) {
    held.merge(rel, 1, Integer::sum);
    boolean joins = innerOrFilter(rel);
    if (!shared && rel instanceof LogicalRel.Join join && join.kind() == JoinKind.SEMI) {
      semiJoins.add(join);
    }
    if (!shared && joins && !inTree) {
      trees.add(rel);
    }
    boolean below = shared || rel instanceof LogicalRel.Shared;
    CommonAggregations.inputs(rel).forEach(input -> collect(input, held, semiJoins, trees, below, joins));
  }

  /** Whether {@code rel} is an inner join, or a filter over one. */
  private static boolean innerOrFilter(LogicalRel rel) {
    return rel instanceof LogicalRel.Join join && join.kind() == JoinKind.INNER
        || rel instanceof LogicalRel.Filter filter && innerOrFilter(filter.input());
  }

  /** The leaves and join pairs of a tree of inner joins and filters over them. */
  private static void flatten(LogicalRel rel, List<LogicalRel> leaves, List<String[]> edges) {
    switch (rel) {
      case LogicalRel.Join join when join.kind() == JoinKind.INNER -> {
        flatten(join.left(), leaves, edges);
        flatten(join.right(), leaves, edges);
        for (int i = 0; i < join.leftKeys().size(); i++) {
          edges.add(new String[] {join.leftKeys().get(i), join.rightKeys().get(i)});
        }
      }
      case LogicalRel.Filter filter when innerOrFilter(filter.input()) -> flatten(filter.input(), leaves, edges);
      default -> leaves.add(rel);
    }
  }

  /**
   * The names of {@code l}'s columns in {@code copy} when {@code copy} reads the same table and
   * columns as {@code l} under names all different; null otherwise.
   */
  private static Map<String, String> renaming(LogicalRel.Scan l, LogicalRel.Scan copy) {
    if (l.source() != copy.source() || !l.tableColumns().equals(copy.tableColumns())) {
      return null;
    }
    Map<String, String> names = new HashMap<>();
    Set<String> copyNames = new HashSet<>(copy.columns());
    for (int i = 0; i < l.columns().size(); i++) {
      if (copyNames.contains(l.columns().get(i))) {
        return null;
      }
      names.put(l.columns().get(i), copy.columns().get(i));
    }
    return names;
  }
}
