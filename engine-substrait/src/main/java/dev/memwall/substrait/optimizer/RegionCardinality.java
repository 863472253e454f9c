package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The estimated rows of each set of a join region's leaves, computed from the set alone, so that
 * every tree over the same leaves (and so the same join edges and conditions) has the same estimate
 * and {@link JoinEnumerator} compares trees by their shapes only, as DPccp and DPhyp require.
 * Estimating a join from its two inputs' estimates instead gives one set several estimates: an
 * input's distinct key count shrinks with every filter and join below it, and the textbook divisor
 * {@code max(distinct(R.a), distinct(S.b))} takes the smaller key set as contained in the larger, so
 * two inputs each reduced on their own (orders of some customers, lineitems of some suppliers) were
 * taken to match each other fully on their shared key.
 *
 * <p>The rows of a set S are the product of its leaves' estimated rows (each with its own filters),
 * times {@code 1/divisor} for the edges of a spanning forest of S's join edges, times the selectivity
 * of each condition over several leaves that S covers. An edge's divisor is {@code max(V(R.a),
 * V(S.b))} with {@code V} the key column's distinct count in the leaf without its filters (the
 * domain its rows are drawn from): a filter on a leaf keeps fewer rows but does not change the
 * chance that two rows match. The forest takes the largest divisors first (Kruskal), so between two
 * leaves joined on several columns only the most selective pair counts, the others taken as implied
 * (overestimating a composite key rather than underestimating it, as {@link CardinalityEstimator#join}
 * does), and of the equalities a class of equal columns brings, only as many count as the class joins
 * leaves. A join on a key of one side thus gives at most the other side's rows. A condition's
 * selectivity is taken once, from its leaves' estimates.
 *
 * <p>Memoized per set; one instance serves one region and is not thread-safe.
 */
final class RegionCardinality {
  private final int leafCount;
  private final double[] rows;
  private final List<JoinEnumerator.Edge> edges;
  private final double[] divisors;
  private final Map<Set<Integer>, Double> conditions = new HashMap<>();
  private final Map<Set<Integer>, Double> memo = new HashMap<>();

  /**
   * The estimates for {@code leaves} (each with its own filters), joined on {@code edges} (the
   * transitive closure included), with the {@code spanning} conditions, each with the leaves it reads.
   */
  RegionCardinality(CardinalityEstimator estimator, List<LogicalRel> leaves, List<JoinEnumerator.Edge> edges,
      Map<Expr, Set<Integer>> spanning) {
    this.leafCount = leaves.size();
    this.rows = new double[leafCount];
    List<CardinalityEstimator.Estimate> filtered = new ArrayList<>();
    List<CardinalityEstimator.Estimate> domains = new ArrayList<>();
    for (int i = 0; i < leafCount; i++) {
      filtered.add(estimator.of(leaves.get(i)));
      domains.add(estimator.of(unfiltered(leaves.get(i))));
      rows[i] = filtered.get(i).rows();
    }
    List<JoinEnumerator.Edge> sorted = new ArrayList<>(edges);
    Map<JoinEnumerator.Edge, Double> divisor = new HashMap<>();
    for (JoinEnumerator.Edge edge : edges) {
      divisor.put(edge, Math.max(1, Math.max(distinct(domains.get(edge.leftLeaf()), edge.leftColumn()),
          distinct(domains.get(edge.rightLeaf()), edge.rightColumn()))));
    }
    sorted.sort(Comparator.comparingDouble(divisor::get).reversed()); // stable: ties keep the edges' order
    this.edges = sorted;
    this.divisors = sorted.stream().mapToDouble(divisor::get).toArray();
    spanning.forEach((condition, read) -> conditions.merge(Set.copyOf(read),
        estimator.selectivity(together(filtered, read), condition), (a, b) -> a * b));
  }

  /** The estimated rows of the leaves {@code set} joined, with every edge and condition among them applied. */
  double rows(Set<Integer> set) {
    Double known = memo.get(set);
    if (known != null) {
      return known;
    }
    double product = 1;
    for (int leaf : set) {
      product *= rows[leaf];
    }
    double estimate = product;
    int[] parent = new int[leafCount];
    for (int i = 0; i < leafCount; i++) {
      parent[i] = i;
    }
    for (int e = 0; e < edges.size(); e++) {
      JoinEnumerator.Edge edge = edges.get(e);
      if (set.contains(edge.leftLeaf()) && set.contains(edge.rightLeaf())) {
        int a = root(parent, edge.leftLeaf());
        int b = root(parent, edge.rightLeaf());
        if (a != b) {
          parent[a] = b;
          estimate /= divisors[e];
        }
      }
    }
    for (Map.Entry<Set<Integer>, Double> condition : conditions.entrySet()) {
      if (set.containsAll(condition.getKey())) {
        estimate *= condition.getValue();
      }
    }
    double result = Math.max(Math.min(1, product), estimate);
    memo.put(Set.copyOf(set), result);
    return result;
  }

  private static int root(int[] parent, int leaf) {
    int root = leaf;
    while (parent[root] != root) {
      root = parent[root];
    }
    return root;
  }

  /** {@code leaf} without the filters on top of it: the rows its key values are drawn from. */
  private static LogicalRel unfiltered(LogicalRel leaf) {
    LogicalRel rel = leaf;
    while (rel instanceof LogicalRel.Filter filter) {
      rel = filter.input();
    }
    return rel;
  }

  /** The distinct values of {@code column} in {@code estimate}; without statistics, its rows (taken as a key). */
  private static double distinct(CardinalityEstimator.Estimate estimate, String column) {
    return estimate.column(column).map(ColumnStatistics::distinct).orElse(estimate.rows());
  }

  /**
   * The leaves {@code read} side by side, for a condition's selectivity: each column as in its leaf,
   * its nulls scaled to keep their share of the rows.
   */
  private static CardinalityEstimator.Estimate together(List<CardinalityEstimator.Estimate> leaves, Set<Integer> read) {
    double product = 1;
    for (int leaf : read) {
      product *= leaves.get(leaf).rows();
    }
    double all = product;
    return new CardinalityEstimator.Estimate(all, name -> {
      for (int leaf : read) {
        CardinalityEstimator.Estimate estimate = leaves.get(leaf);
        Optional<ColumnStatistics> found = estimate.column(name);
        if (found.isPresent()) {
          ColumnStatistics c = found.get();
          double share = estimate.rows() > 0 ? c.nulls() / estimate.rows() : 0;
          return Optional.of(new ColumnStatistics(c.distinct(), share * all, c.min(), c.max(), c.scale()));
        }
      }
      return Optional.empty();
    });
  }
}
