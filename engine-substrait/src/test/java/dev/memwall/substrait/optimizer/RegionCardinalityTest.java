package dev.memwall.substrait.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Estimates of sets of a join region's leaves from supplied statistics (the scans' one table is
 * never read): one estimate per set whatever the order the leaves and edges come in, foreign-key
 * joins, filtered leaves, composite keys and conditions over several leaves.
 */
@ExtendWith(LeakCheck.class)
class RegionCardinalityTest {
  private static final double EPSILON = 1e-6;

  private static Table stub(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "j", "m"), List.of(ColumnType.INT64, ColumnType.INT64,
        ColumnType.INT64), memory.arrow())) {
      return builder.build();
    }
  }

  /** Table {@code name} of {@code rows} rows: column {@code k} a key, {@code j} with {@code distinct} values. */
  private static LogicalRel scan(Table stub, String name, double rows, double distinct,
      Map<String, TableStatistics> stats) {
    return scan(stub, name, rows, distinct, 1, stats);
  }

  /** Table {@code name} of {@code rows} rows: {@code k} a key, {@code j} and {@code m} with so many values. */
  private static LogicalRel scan(Table stub, String name, double rows, double j, double m,
      Map<String, TableStatistics> stats) {
    stats.put(name, TableStatistics.supplied(rows, Map.of("k", ColumnStatistics.distinct(rows),
        "j", ColumnStatistics.distinct(j), "m", ColumnStatistics.distinct(m))));
    return new LogicalRel.Scan(name, stub, List.of("k", "j", "m"), List.of(name + "_k", name + "_j", name + "_m"));
  }

  /** {@code rel} keeping the rows where {@code column} is one of its values. */
  private static LogicalRel oneValue(LogicalRel rel, String column) {
    return new LogicalRel.Filter(rel, Expr.col(column).eq(Expr.lit(3L)));
  }

  /** Leaves x (1,000 rows, 10 values of x_j), y and z of {@code {rows, distinct j values}}. */
  private static List<LogicalRel> xyz(Table stub, Map<String, TableStatistics> stats, double[] y, double[] z) {
    return List.of(scan(stub, "x", 1_000, 10, stats), scan(stub, "y", y[0], y[1], stats),
        scan(stub, "z", z[0], z[1], stats));
  }

  private static RegionCardinality cardinality(Map<String, TableStatistics> stats, List<LogicalRel> leaves,
      List<JoinEnumerator.Edge> edges, Map<Expr, Set<Integer>> spanning) {
    return new RegionCardinality(new CardinalityEstimator(scan -> stats.get(scan.table())), leaves, edges, spanning);
  }

  @Test
  void aSetHasOneEstimateWhateverOrderItsLeavesAndEdgesComeIn(EngineMemory memory) {
    // orders of the customers of one nation, lineitems of the suppliers of one nation: lineitem -
    // orders - customer - nation and lineitem - supplier - nation', both nations filtered
    try (Table stub = stub(memory)) {
      Map<String, TableStatistics> stats = new HashMap<>();
      List<LogicalRel> leaves = List.of(scan(stub, "li", 60_000, 15_000, 100, stats),
          scan(stub, "ord", 15_000, 1_000, stats),
          scan(stub, "cust", 1_500, 25, stats), oneValue(scan(stub, "nat", 25, 25, stats), "nat_k"),
          scan(stub, "supp", 100, 25, stats), oneValue(scan(stub, "nat2", 25, 25, stats), "nat2_k"));
      // li_j: the order, li_m the supplier; ord_j the customer (two thirds of them have orders)
      List<JoinEnumerator.Edge> edges = List.of(new JoinEnumerator.Edge(0, "li_j", 1, "ord_k"),
          new JoinEnumerator.Edge(1, "ord_j", 2, "cust_k"), new JoinEnumerator.Edge(2, "cust_j", 3, "nat_k"),
          new JoinEnumerator.Edge(0, "li_m", 4, "supp_k"), new JoinEnumerator.Edge(4, "supp_j", 5, "nat2_k"));
      RegionCardinality forward = cardinality(stats, leaves, edges, Map.of());
      List<LogicalRel> reversedLeaves = new ArrayList<>(leaves.reversed());
      List<JoinEnumerator.Edge> reversedEdges = edges.reversed().stream().map(e -> new JoinEnumerator.Edge(
          5 - e.rightLeaf(), e.rightColumn(), 5 - e.leftLeaf(), e.leftColumn())).toList();
      RegionCardinality backward = cardinality(stats, reversedLeaves, reversedEdges, Map.of());
      for (int set = 1; set < 1 << 6; set++) {
        Set<Integer> leavesOf = new java.util.HashSet<>();
        Set<Integer> mirrored = new java.util.HashSet<>();
        for (int i = 0; i < 6; i++) {
          if ((set & 1 << i) != 0) {
            leavesOf.add(i);
            mirrored.add(5 - i);
          }
        }
        assertEquals(forward.rows(leavesOf), backward.rows(mirrored), EPSILON * forward.rows(leavesOf),
            "set " + leavesOf);
      }
      // the two halves, each filtered by its nation, and all of them: every tree over the six leaves
      // reads the same estimate, computed from the set
      assertEquals(15_000.0 / 25, forward.rows(Set.of(1, 2, 3)), EPSILON, "orders of one nation's customers");
      assertEquals(60_000.0 / 25, forward.rows(Set.of(0, 4, 5)), EPSILON, "lineitems of one nation's suppliers");
      assertEquals(60_000.0 / 25 / 25, forward.rows(Set.of(0, 1, 2, 3, 4, 5)), EPSILON,
          "lineitems of both: the halves' keys drawn independently from the order keys, not contained in each other");
    }
  }

  @Test
  void aForeignKeyJoinGivesAtMostTheReferringRowsAndAFilteredKeySideKeepsItsShare(EngineMemory memory) {
    try (Table stub = stub(memory)) {
      Map<String, TableStatistics> stats = new HashMap<>();
      List<LogicalRel> leaves = List.of(scan(stub, "fact", 10_000, 100, stats), scan(stub, "dim", 100, 10, stats));
      List<JoinEnumerator.Edge> edges = List.of(new JoinEnumerator.Edge(0, "fact_j", 1, "dim_k"));
      assertEquals(10_000, cardinality(stats, leaves, edges, Map.of()).rows(Set.of(0, 1)), EPSILON);
      // a tenth of the dimension (dim_j = 3) keeps a tenth of the facts, whatever distinct keys the filter leaves
      List<LogicalRel> filtered = List.of(leaves.get(0), oneValue(leaves.get(1), "dim_j"));
      RegionCardinality cardinality = cardinality(stats, filtered, edges, Map.of());
      assertEquals(10, cardinality.rows(Set.of(1)), EPSILON);
      assertEquals(1_000, cardinality.rows(Set.of(0, 1)), EPSILON);
    }
  }

  @Test
  void twoInputsFilteredApartMatchAsSamplesOfTheirKeysDomainNotAsContainedInEachOther(EngineMemory memory) {
    // a: 1,000 rows, key a_k; b: 1,000 rows, b_j a foreign key of a (1,000 values); each filtered to a
    // tenth on its other column: a tenth of b's remaining rows find their a row, not all of them
    try (Table stub = stub(memory)) {
      Map<String, TableStatistics> stats = new HashMap<>();
      List<LogicalRel> leaves = List.of(oneValue(scan(stub, "a", 1_000, 10, stats), "a_j"),
          new LogicalRel.Filter(scan(stub, "b", 1_000, 1_000, stats), Expr.col("b_k").lt(Expr.lit(100L))));
      RegionCardinality cardinality = cardinality(stats, leaves,
          List.of(new JoinEnumerator.Edge(0, "a_k", 1, "b_j")), Map.of());
      double b = cardinality.rows(Set.of(1));
      assertEquals(100, cardinality.rows(Set.of(0)), EPSILON);
      assertEquals(100 * b / 1_000, cardinality.rows(Set.of(0, 1)), EPSILON);
      assertTrue(cardinality.rows(Set.of(0, 1)) < 100, "not every remaining a row finds a remaining b row: "
          + cardinality.rows(Set.of(0, 1)));
    }
  }

  @Test
  void betweenTwoLeavesOnSeveralColumnsOnlyTheMostSelectivePairCounts(EngineMemory memory) {
    // li (6,000 rows) and ps (800 rows) on (part, supplier): 200 and 10 values; taking both as
    // independent would give 2.4 rows, where each lineitem has its one partsupp row
    try (Table stub = stub(memory)) {
      Map<String, TableStatistics> stats = new HashMap<>();
      stats.put("li", TableStatistics.supplied(6_000, Map.of("p", ColumnStatistics.distinct(200),
          "s", ColumnStatistics.distinct(10))));
      stats.put("ps", TableStatistics.supplied(800, Map.of("p", ColumnStatistics.distinct(200),
          "s", ColumnStatistics.distinct(10))));
      List<LogicalRel> leaves = List.of(new LogicalRel.Scan("li", stub, List.of("p", "s"), List.of("li_p", "li_s")),
          new LogicalRel.Scan("ps", stub, List.of("p", "s"), List.of("ps_p", "ps_s")));
      RegionCardinality cardinality = cardinality(stats, leaves, List.of(new JoinEnumerator.Edge(0, "li_s", 1, "ps_s"),
          new JoinEnumerator.Edge(0, "li_p", 1, "ps_p")), Map.of());
      assertEquals(6_000.0 * 800 / 200, cardinality.rows(Set.of(0, 1)), EPSILON);
    }
  }

  @Test
  void anEqualityImpliedByTwoOthersDoesNotCountAgain(EngineMemory memory) {
    // x.j = y.j = z.j (and the implied x.j = z.j): two of the three edges join the three leaves
    try (Table stub = stub(memory)) {
      Map<String, TableStatistics> stats = new HashMap<>();
      List<LogicalRel> leaves = xyz(stub, stats, new double[] {1_000, 10}, new double[] {100, 10});
      RegionCardinality cardinality = cardinality(stats, leaves, List.of(new JoinEnumerator.Edge(0, "x_j", 1, "y_j"),
          new JoinEnumerator.Edge(1, "y_j", 2, "z_j"), new JoinEnumerator.Edge(0, "x_j", 2, "z_j")), Map.of());
      assertEquals(1_000.0 * 1_000 * 100 / 10 / 10, cardinality.rows(Set.of(0, 1, 2)), EPSILON);
      assertEquals(1_000.0 * 100 / 10, cardinality.rows(Set.of(0, 2)), EPSILON, "the implied edge alone");
    }
  }

  @Test
  void aConditionOverSeveralLeavesCountsOnlyInTheSetsCoveringAllOfThem(EngineMemory memory) {
    try (Table stub = stub(memory)) {
      Map<String, TableStatistics> stats = new HashMap<>();
      List<LogicalRel> leaves = xyz(stub, stats, new double[] {100, 100}, new double[] {50, 5});
      Expr notEqual = Expr.col("x_j").eq(Expr.col("z_j")); // not an edge: say the types do not hash together
      RegionCardinality cardinality = cardinality(stats, leaves, List.of(new JoinEnumerator.Edge(0, "x_j", 1, "y_k")),
          Map.of(notEqual, Set.of(0, 2)));
      assertEquals(1_000, cardinality.rows(Set.of(0, 1)), EPSILON, "no condition among them");
      assertEquals(1_000 * 50 / 10.0, cardinality.rows(Set.of(0, 2)), EPSILON, "an unlinked pair, the condition applied");
      assertEquals(1_000 * 50 / 10.0, cardinality.rows(Set.of(0, 1, 2)), EPSILON);
      assertEquals(100 * 50, cardinality.rows(Set.of(1, 2)), EPSILON, "a cross product, nothing applies");
    }
  }
}
