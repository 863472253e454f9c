package dev.memwall.substrait.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.logical.Explain;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Join orders from supplied statistics (the scans' one table is never read): equalities closed
 * transitively, exhaustive search up to ten leaves, greedy beyond, every leaf joined once either way.
 */
@ExtendWith(LeakCheck.class)
class JoinEnumeratorTest {

  private static Table stub(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "j"), List.of(ColumnType.INT64, ColumnType.INT64),
        memory.arrow())) {
      return builder.build();
    }
  }

  /** Leaf {@code ti} of {@code rows} rows: {@code ti_k} a key, {@code ti_j} with {@code distinct} values. */
  private static LogicalRel leaf(Table stub, int i, double rows, double distinct, Map<String, TableStatistics> stats) {
    stats.put("t" + i, TableStatistics.supplied(rows, Map.of("k", ColumnStatistics.distinct(rows),
        "j", ColumnStatistics.distinct(distinct))));
    return new LogicalRel.Scan("t" + i, stub, List.of("k", "j"), List.of("t" + i + "_k", "t" + i + "_j"));
  }

  private static LogicalRel ordered(List<LogicalRel> leaves, List<JoinEnumerator.Edge> edges,
      Map<String, TableStatistics> stats, Map<Expr, Set<Integer>> spanning) {
    CardinalityEstimator estimator = new CardinalityEstimator(scan -> stats.get(scan.table()));
    return new JoinEnumerator(estimator, (a, b) -> true, edges, spanning).join(leaves);
  }

  /** The ordered plan of leaves {@code t0..} of {@code sizes[i] = {rows, distinct j values}}, as text. */
  private static String plan(Table stub, double[][] sizes, List<JoinEnumerator.Edge> edges,
      Map<Expr, Set<Integer>> spanning) {
    Map<String, TableStatistics> stats = new HashMap<>();
    List<LogicalRel> leaves = new ArrayList<>();
    for (int i = 0; i < sizes.length; i++) {
      leaves.add(leaf(stub, i, sizes[i][0], sizes[i][1], stats));
    }
    return Explain.of(ordered(leaves, edges, stats, spanning));
  }

  private static int scans(String plan) {
    return plan.split("scan t", -1).length - 1;
  }

  @Test
  void anEqualityImpliedByTwoOthersLetsAStarJoinItsSmallestNeighbourFirst(EngineMemory memory) {
    // t0.j = t1.j (many to many: 1,000 x 1,000 rows over 10 values) and t1.j = t2.j, t2 a
    // 10-row dimension whose key is j's value: t0 and t2 join first through the implied t0.j = t2.k
    try (Table stub = stub(memory)) {
      String plan = plan(stub, new double[][] {{1000, 10}, {1000, 10}, {10, 10}}, List.of(
          new JoinEnumerator.Edge(0, "t0_j", 1, "t1_j"), new JoinEnumerator.Edge(1, "t1_j", 2, "t2_k")), Map.of());
      assertTrue(plan.contains("inner join on [t0_j] = [t2_k]") || plan.contains("inner join on [t1_j] = [t2_k]"),
          "the dimension joins first, on the original or the implied equality:\n" + plan);
      assertTrue(plan.startsWith("inner join on [t0_j] = [t1_j]") || plan.startsWith("inner join on [t1_j] = [t0_j]"),
          "one key per class at the top, the implied duplicate left out:\n" + plan);
    }
  }

  @Test
  void moreLeavesThanTheExhaustiveSearchTakesAreJoinedGreedilyEachOnce(EngineMemory memory) {
    // a chain t0 - t1 - ... - t11 on keys, sizes falling: every leaf appears once, all joined
    try (Table stub = stub(memory)) {
      Map<String, TableStatistics> stats = new HashMap<>();
      List<LogicalRel> leaves = new ArrayList<>();
      List<JoinEnumerator.Edge> edges = new ArrayList<>();
      int n = JoinEnumerator.EXHAUSTIVE + 2;
      for (int i = 0; i < n; i++) {
        leaves.add(leaf(stub, i, 1000.0 * (n - i), 100, stats));
        if (i > 0) {
          edges.add(new JoinEnumerator.Edge(i - 1, "t" + (i - 1) + "_j", i, "t" + i + "_k"));
        }
      }
      String plan = Explain.of(ordered(leaves, edges, stats, Map.of()));
      assertEquals(n, scans(plan), plan);
      assertEquals(n - 1, plan.split("inner join", -1).length - 1, "no cross: " + plan);
      for (int i = 0; i < n; i++) {
        assertEquals(1, plan.split("scan t" + i + " ", -1).length - 1, "t" + i + " once: " + plan);
      }
    }
  }

  @Test
  void aConditionOverThreeLeavesIsAppliedOnceWhereTheyFirstMeet(EngineMemory memory) {
    try (Table stub = stub(memory)) {
      Expr spanning = Expr.col("t0_j").add(Expr.col("t1_j")).lt(Expr.col("t2_j"));
      String plan = plan(stub, new double[][] {{100, 100}, {10, 10}, {1000, 100}}, List.of(
          new JoinEnumerator.Edge(0, "t0_j", 1, "t1_k"), new JoinEnumerator.Edge(0, "t0_k", 2, "t2_j")),
          Map.of(spanning, Set.of(0, 1, 2)));
      assertEquals(1, plan.split("filter", -1).length - 1, plan);
      assertTrue(plan.startsWith("filter"), "applied after the last join:\n" + plan);
    }
  }
}
