package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * Chooses the order of one join region's inner equi-joins from {@link CardinalityEstimator}'s
 * estimates of its leaves, each set of leaves estimated from the set alone ({@link
 * RegionCardinality}), so that trees are compared by their shapes, not by which tree estimated a set
 * lower. The equalities are closed transitively first ({@code a = b} and {@code b = c} give
 * {@code a = c} where a join takes those columns as keys), so that a relation can join whichever
 * neighbour is cheapest. With the leaves all linked and at most {@link #EXHAUSTIVE} of them, every
 * bushy tree is considered (dynamic programming over the connected subsets, as DPsub does) and the
 * one with the smallest sum of estimated intermediate results wins; otherwise greedy operator
 * ordering (GOO) joins the linked pair with the smallest estimated result first, and crosses
 * unlinked parts smallest first. Each join takes one equality per class of equal columns as
 * keys, and the smaller estimated input as its build (right) side; a condition over several leaves
 * is applied right after the join that brings its leaves together.
 *
 * <p>Cost: 3^n joins estimated for n leaves up to {@link #EXHAUSTIVE} (about 6,600 for TPC-H's
 * widest, 8), n^3 beyond. One instance orders one region; not thread-safe.
 */
final class JoinEnumerator {
  /** The most leaves ordered exhaustively. */
  static final int EXHAUSTIVE = 10;

  /** A {@code field = field} conjunct between two leaves. */
  record Edge(int leftLeaf, String leftColumn, int rightLeaf, String rightColumn) {}

  /** A part of the tree under construction: its plan, the leaves it covers, its estimated rows (those of the set). */
  private record Component(LogicalRel rel, Set<Integer> leaves, double rows) {}

  private final CardinalityEstimator estimator;
  private final List<Edge> edges;
  private final Map<String, Integer> classes = new HashMap<>();
  private final Map<Expr, Set<Integer>> spanning;
  private RegionCardinality cardinality;

  /**
   * An enumerator for {@code edges} (with their transitive closure where {@code joinable} takes the
   * columns as keys) and the {@code spanning} conditions, each with the leaves it reads.
   */
  JoinEnumerator(CardinalityEstimator estimator, BiPredicate<String, String> joinable, List<Edge> edges,
      Map<Expr, Set<Integer>> spanning) {
    this.estimator = estimator;
    this.spanning = spanning;
    Map<String, String> parent = new HashMap<>();
    Map<String, Integer> leafOf = new LinkedHashMap<>();
    for (Edge edge : edges) {
      leafOf.put(edge.leftColumn(), edge.leftLeaf());
      leafOf.put(edge.rightColumn(), edge.rightLeaf());
      parent.put(find(parent, edge.leftColumn()), find(parent, edge.rightColumn()));
    }
    Map<String, Integer> ids = new HashMap<>();
    leafOf.keySet().forEach(column -> classes.put(column, ids.computeIfAbsent(find(parent, column), r -> ids.size())));
    List<Edge> closed = new ArrayList<>(edges);
    Set<List<String>> present = new java.util.HashSet<>();
    edges.forEach(e -> present.add(List.of(e.leftColumn(), e.rightColumn())));
    List<String> columns = List.copyOf(leafOf.keySet());
    for (int i = 0; i < columns.size(); i++) {
      for (int j = i + 1; j < columns.size(); j++) {
        String a = columns.get(i);
        String b = columns.get(j);
        if (classes.get(a).equals(classes.get(b)) && !leafOf.get(a).equals(leafOf.get(b))
            && !present.contains(List.of(a, b)) && !present.contains(List.of(b, a)) && joinable.test(a, b)) {
          closed.add(new Edge(leafOf.get(a), a, leafOf.get(b), b));
        }
      }
    }
    this.edges = closed;
  }

  private static String find(Map<String, String> parent, String column) {
    String root = column;
    while (parent.containsKey(root) && !parent.get(root).equals(root)) {
      root = parent.get(root);
    }
    return root;
  }

  /** The join tree over {@code leaves} (each already filtered by its own conditions). */
  LogicalRel join(List<LogicalRel> leaves) {
    cardinality = new RegionCardinality(estimator, leaves, edges, spanning);
    List<Component> components = new ArrayList<>();
    for (int i = 0; i < leaves.size(); i++) {
      components.add(new Component(leaves.get(i), Set.of(i), cardinality.rows(Set.of(i))));
    }
    if (components.size() <= EXHAUSTIVE) {
      Component best = exhaustive(components);
      if (best != null) {
        return best.rel();
      }
    }
    while (components.size() > 1) {
      components = joinCheapest(components);
    }
    return components.getFirst().rel();
  }

  /** The cheapest tree over all {@code leaves} by dynamic programming, or null when they are not all linked. */
  private Component exhaustive(List<Component> leaves) {
    int n = leaves.size();
    Component[] best = new Component[1 << n];
    double[] cost = new double[1 << n];
    for (int i = 0; i < n; i++) {
      best[1 << i] = leaves.get(i);
    }
    for (int set = 1; set < 1 << n; set++) {
      if (Integer.bitCount(set) < 2) {
        continue;
      }
      int lowest = set & -set;
      for (int part = (set - 1) & set; part > 0; part = (part - 1) & set) {
        int rest = set ^ part;
        if ((part & lowest) == 0 || best[part] == null || best[rest] == null) {
          continue; // each split once; only linked (connected) subsets have plans
        }
        List<Edge> linking = linking(best[part], best[rest]);
        if (linking.isEmpty()) {
          continue;
        }
        Component joined = joined(best[part], best[rest], linking);
        double total = cost[part] + cost[rest] + joined.rows();
        if (best[set] == null || total < cost[set]) {
          best[set] = joined;
          cost[set] = total;
        }
      }
    }
    return best[(1 << n) - 1];
  }

  /** The components with the cheapest linked pair (or, with none linked, the two smallest) joined. */
  private List<Component> joinCheapest(List<Component> components) {
    Component best = null;
    Component bestA = null;
    Component bestB = null;
    double bestInputs = Double.MAX_VALUE;
    for (int i = 0; i < components.size(); i++) {
      for (int j = i + 1; j < components.size(); j++) {
        List<Edge> linking = linking(components.get(i), components.get(j));
        if (linking.isEmpty()) {
          continue;
        }
        Component joined = joined(components.get(i), components.get(j), linking);
        double inputs = components.get(i).rows() + components.get(j).rows();
        if (best == null || joined.rows() < best.rows() || (joined.rows() == best.rows() && inputs < bestInputs)) {
          best = joined;
          bestA = components.get(i);
          bestB = components.get(j);
          bestInputs = inputs;
        }
      }
    }
    List<Component> remaining = new ArrayList<>(components);
    if (best == null) { // nothing linked: cross the two smallest
      remaining.sort((a, b) -> Double.compare(a.rows(), b.rows()));
      Component small = remaining.remove(0);
      Component other = remaining.remove(0);
      LogicalRel cross = new LogicalRel.Cross(other.rel(), small.rel());
      Set<Integer> both = union(small, other);
      best = conditioned(new Component(cross, both, cardinality.rows(both)), small, other);
    } else {
      remaining.remove(bestA);
      remaining.remove(bestB);
    }
    remaining.add(best);
    return remaining;
  }

  /** The inner join of {@code a} and {@code b} on {@code linking}, the smaller estimated side building. */
  private Component joined(Component a, Component b, List<Edge> linking) {
    Component probe = a.rows() >= b.rows() ? a : b;
    Component build = probe == a ? b : a;
    List<String> probeKeys = new ArrayList<>();
    List<String> buildKeys = new ArrayList<>();
    Set<Integer> keyed = new LinkedHashSet<>();
    for (Edge edge : linking) {
      if (!keyed.add(classes.get(edge.leftColumn()))) {
        continue; // the columns of a class are already equal within each side: one equality joins them
      }
      boolean leftOnProbe = probe.leaves().contains(edge.leftLeaf());
      probeKeys.add(leftOnProbe ? edge.leftColumn() : edge.rightColumn());
      buildKeys.add(leftOnProbe ? edge.rightColumn() : edge.leftColumn());
    }
    LogicalRel join = new LogicalRel.Join(JoinKind.INNER, probe.rel(), build.rel(), probeKeys, buildKeys);
    Set<Integer> both = union(a, b);
    return conditioned(new Component(join, both, cardinality.rows(both)), a, b);
  }

  /** {@code joined} filtered by the spanning conditions it is the first to cover (neither {@code a} nor {@code b} does). */
  private Component conditioned(Component joined, Component a, Component b) {
    List<Expr> now = new ArrayList<>();
    spanning.forEach((condition, leaves) -> {
      if (joined.leaves().containsAll(leaves) && !a.leaves().containsAll(leaves) && !b.leaves().containsAll(leaves)) {
        now.add(condition);
      }
    });
    if (now.isEmpty()) {
      return joined;
    }
    return new Component(new LogicalRel.Filter(joined.rel(), Exprs.and(now)), joined.leaves(), joined.rows());
  }

  private List<Edge> linking(Component a, Component b) {
    return edges.stream().filter(e -> (a.leaves().contains(e.leftLeaf()) && b.leaves().contains(e.rightLeaf()))
        || (b.leaves().contains(e.leftLeaf()) && a.leaves().contains(e.rightLeaf()))).toList();
  }

  private static Set<Integer> union(Component a, Component b) {
    Set<Integer> leaves = new LinkedHashSet<>(a.leaves());
    leaves.addAll(b.leaves());
    return Set.copyOf(leaves);
  }
}
