package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * The logical rewrite that turns SQL's comma joins into equi-joins. A tree of cross products and
 * inner joins, with the filters directly above or inside it, is one join region: its inputs (the
 * leaves: anything that is not a cross, an inner join or a filter over them, itself optimized
 * first) and its conjuncts (the filters' and the inner joins' keys). Conjuncts that every OR
 * operand repeats are factored out of the OR first ({@code (a and x) or (a and y)} gives {@code a}
 * too). A conjunct reading one leaf is pushed down onto that leaf, and so is what an OR over several
 * leaves implies on one of them ({@link DisjunctionPushdown}) where the estimate says it drops most
 * rows, in a filter of its own above the leaf's own conditions; a {@code field = field}
 * conjunct across two leaves, of types a hash join takes as keys, is a join edge; the rest are
 * applied right after the join that brings their columns together. {@link JoinEnumerator} then
 * orders the joins from the estimates of {@link CardinalityEstimator} (distinct counts and ranges,
 * so that a many-to-many join of two small inputs comes after the selective key joins).
 *
 * <p>Everything else is rebuilt unchanged around its optimized inputs. Names make this safe: every
 * column keeps its name, so the parents of a region find their columns wherever the new tree puts
 * them. Thread-safe when the estimator is: each call works on its own state.
 */
public final class JoinOrder {
  /**
   * {@code rel} with its join regions reordered; the same rows. {@code joinable} says which pairs of
   * columns a hash join can take as keys (by their types); an equality of other columns is a
   * condition applied after the join that brings them together.
   */
  public static LogicalRel optimize(LogicalRel rel, BiPredicate<String, String> joinable,
      CardinalityEstimator estimator) {
    return new JoinOrder(joinable, estimator).optimize(rel);
  }

  /** The largest estimated share of an input's rows a filter implied on it may keep and still be applied. */
  static final double IMPLIED_KEEPS_AT_MOST = 0.5;

  private final BiPredicate<String, String> joinable;
  private final CardinalityEstimator estimator;

  private JoinOrder(BiPredicate<String, String> joinable, CardinalityEstimator estimator) {
    this.joinable = joinable;
    this.estimator = estimator;
  }

  private LogicalRel optimize(LogicalRel rel) {
    if (isRegion(rel)) {
      return region(rel);
    }
    return switch (rel) {
      case LogicalRel.Scan scan -> scan;
      case LogicalRel.Filter filter -> new LogicalRel.Filter(optimize(filter.input()), filter.condition());
      case LogicalRel.Project project -> new LogicalRel.Project(optimize(project.input()), project.outputs());
      case LogicalRel.Aggregation a -> new LogicalRel.Aggregation(optimize(a.input()), a.keys(), a.measures());
      case LogicalRel.Sort sort -> new LogicalRel.Sort(optimize(sort.input()), sort.keys());
      case LogicalRel.Limit limit -> new LogicalRel.Limit(optimize(limit.input()), limit.rows());
      case LogicalRel.Join join -> new LogicalRel.Join(join.kind(), optimize(join.left()),
          optimize(join.right()), join.leftKeys(), join.rightKeys());
      case LogicalRel.Cross cross -> new LogicalRel.Cross(optimize(cross.left()),
          optimize(cross.right()));
      case LogicalRel.Shared shared -> new LogicalRel.Shared(shared.id(), optimize(shared.input()));
    };
  }

  /** Whether {@code rel} is a cross or inner join, or a filter over one (possibly through more filters). */
  private static boolean isRegion(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Cross cross -> true;
      case LogicalRel.Join join -> join.kind() == JoinKind.INNER;
      case LogicalRel.Filter filter -> isRegion(filter.input());
      default -> false;
    };
  }

  private void flatten(LogicalRel rel, List<LogicalRel> leaves, List<Expr> conjuncts) {
    if (!isRegion(rel)) {
      leaves.add(optimize(rel));
      return;
    }
    switch (rel) {
      case LogicalRel.Cross cross -> {
        flatten(cross.left(), leaves, conjuncts);
        flatten(cross.right(), leaves, conjuncts);
      }
      case LogicalRel.Join join -> {
        flatten(join.left(), leaves, conjuncts);
        flatten(join.right(), leaves, conjuncts);
        for (int i = 0; i < join.leftKeys().size(); i++) {
          conjuncts.add(Expr.col(join.leftKeys().get(i)).eq(Expr.col(join.rightKeys().get(i))));
        }
      }
      case LogicalRel.Filter filter -> {
        flatten(filter.input(), leaves, conjuncts);
        conjuncts.addAll(Exprs.conjuncts(filter.condition()));
      }
      default -> throw new IllegalStateException("not a region node: " + rel);
    }
  }

  private LogicalRel region(LogicalRel rel) {
    List<LogicalRel> leaves = new ArrayList<>();
    List<Expr> found = new ArrayList<>();
    flatten(rel, leaves, found);
    List<Expr> conjuncts = new ArrayList<>();
    for (Expr conjunct : found) {
      conjuncts.addAll(factorOr(conjunct));
    }
    Map<String, Integer> owner = new HashMap<>();
    for (int i = 0; i < leaves.size(); i++) {
      for (String column : leaves.get(i).columns()) {
        owner.put(column, i);
      }
    }
    List<List<Expr>> pushed = new ArrayList<>();
    List<List<Expr>> implied = new ArrayList<>();
    leaves.forEach(leaf -> {
      pushed.add(new ArrayList<>());
      implied.add(new ArrayList<>());
    });
    List<JoinEnumerator.Edge> edges = new ArrayList<>();
    List<Expr> constant = new ArrayList<>();
    Map<Expr, Set<Integer>> spanning = new java.util.LinkedHashMap<>();
    for (Expr conjunct : conjuncts) {
      Set<Integer> touched = new LinkedHashSet<>();
      for (String column : Exprs.columns(conjunct)) {
        Integer leaf = owner.get(column);
        if (leaf == null) {
          throw new IllegalStateException("column '" + column + "' of " + conjunct + " is on no input of the join");
        }
        touched.add(leaf);
      }
      if (touched.isEmpty()) {
        constant.add(conjunct);
      } else if (touched.size() == 1) {
        pushed.get(touched.iterator().next()).add(conjunct);
      } else if (touched.size() == 2 && conjunct instanceof Expr.Comparison c && c.op() == Expr.ComparisonOp.EQ
          && c.left() instanceof Expr.ColumnRef a && c.right() instanceof Expr.ColumnRef b
          && joinable.test(a.name(), b.name())) {
        edges.add(new JoinEnumerator.Edge(owner.get(a.name()), a.name(), owner.get(b.name()), b.name()));
      } else {
        spanning.put(conjunct, touched);
        DisjunctionPushdown.implied(conjunct, owner).forEach((leaf, filter) -> implied.get(leaf).add(filter));
      }
    }
    List<LogicalRel> filtered = new ArrayList<>();
    for (int i = 0; i < leaves.size(); i++) {
      LogicalRel leaf = pushed.get(i).isEmpty() ? leaves.get(i)
          : new LogicalRel.Filter(leaves.get(i), Exprs.and(pushed.get(i)));
      filtered.add(impliedFilter(leaf, implied.get(i)));
    }
    LogicalRel result = new JoinEnumerator(estimator, joinable, edges, spanning).join(filtered);
    return constant.isEmpty() ? result : new LogicalRel.Filter(result, Exprs.and(constant));
  }

  /**
   * {@code leaf} with the filters ORs over several inputs imply on it, where they are worth running:
   * they only repeat part of a condition applied after the join anyway, so one that keeps most of the
   * leaf's rows (by the estimate: more than {@link #IMPLIED_KEEPS_AT_MOST}) saves the join little
   * and costs a pass over its columns, often ones nothing else reads before the join. A kept one runs
   * in a filter of its own above the leaf's own conditions, on the rows they keep, rather than first,
   * where the binder puts a range.
   */
  private LogicalRel impliedFilter(LogicalRel leaf, List<Expr> implied) {
    if (implied.isEmpty()) {
      return leaf;
    }
    Expr condition = Exprs.and(implied);
    return estimator.selectivity(estimator.of(leaf), condition) > IMPLIED_KEEPS_AT_MOST ? leaf
        : new LogicalRel.Filter(leaf, condition);
  }

  /**
   * {@code conjunct} as conjuncts with what every operand of an OR repeats factored out: {@code (a
   * and x) or (a and y)} is {@code a} and {@code x or y}; anything else is itself.
   */
  static List<Expr> factorOr(Expr conjunct) {
    if (!(conjunct instanceof Expr.Or or) || or.operands().size() < 2) {
      return List.of(conjunct);
    }
    List<List<Expr>> operands = or.operands().stream().map(Exprs::conjuncts).toList();
    List<Expr> common = new ArrayList<>(new LinkedHashSet<>(operands.getFirst()));
    operands.forEach(common::retainAll);
    if (common.isEmpty()) {
      return List.of(conjunct);
    }
    List<Expr> rest = new ArrayList<>();
    for (List<Expr> operand : operands) {
      List<Expr> left = new ArrayList<>(operand);
      left.removeAll(common);
      if (left.isEmpty()) {
        return common; // one operand is just the common part: the OR adds nothing
      }
      rest.add(Exprs.and(left));
    }
    List<Expr> result = new ArrayList<>(common);
    result.add(new Expr.Or(rest));
    return result;
  }
}
