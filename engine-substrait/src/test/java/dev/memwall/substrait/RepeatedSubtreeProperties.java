package dev.memwall.substrait;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.substrait.LogicalRuns.ids;
import static dev.memwall.substrait.LogicalRuns.scan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.Explain;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.optimizer.CardinalityEstimator;
import dev.memwall.substrait.optimizer.ColumnStatistics;
import dev.memwall.substrait.optimizer.CommonSubtrees;
import dev.memwall.substrait.optimizer.SharedSemiJoin;
import dev.memwall.substrait.optimizer.TableStatistics;
import dev.memwall.substrait.optimizer.TotalFromGroups;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link CommonSubtrees}, {@link SharedSemiJoin} and {@link TotalFromGroups} against the plans
 * they rewrite, both run: a large table {@code t(k, v)} joined to the chosen rows of a small
 * {@code u(k, v)} (its positive values), once for a grouping and again for a total over the same
 * rows (TPC-H Q11's shape), or joined to them and to the minimum value per key of its rows semi
 * joined to them (TPC-H Q2's shape). Keys are skewed, repeated, null and at the type's limits, values null in places, either
 * table possibly empty. The estimates come from supplied statistics under which the chosen rows are
 * few, so that sharing pays, or many, so that it does not.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class RepeatedSubtreeProperties {
  private static final CardinalityEstimator FEW = new CardinalityEstimator(scan -> scan.table().equals("t")
      ? TableStatistics.supplied(1e6, Map.of("k", ColumnStatistics.distinct(1e4)))
      : TableStatistics.supplied(100, Map.of("k", ColumnStatistics.distinct(100), "v", ColumnStatistics.distinct(3))));
  private static final CardinalityEstimator MANY = new CardinalityEstimator(scan -> scan.table().equals("t")
      ? TableStatistics.supplied(1e6, Map.of("k", ColumnStatistics.distinct(1e6)))
      : TableStatistics.supplied(1e6, Map.of("k", ColumnStatistics.distinct(1e6),
          "v", new ColumnStatistics(2, 0, 1, 2, 0)))); // every value positive: all of u is chosen

  @Property(tries = 80)
  void aJoinRepeatedForATotalIsComputedOnceWithTheSameRows(@ForAll("keys") @Size(max = 40) List<Long> large,
      @ForAll("keys") @Size(max = 12) List<Long> small, @ForAll boolean totalOnTheLeft, EngineMemory memory) {
    try (Table t = KeyValueTables.of(memory, "k", "v", large); Table u = KeyValueTables.of(memory, "k", "v", small)) {
      LogicalRel grouped = new LogicalRel.Aggregation(joined(t, u, ""), List.of(col("k").as("k")),
          List.of(Aggregate.sum(col("v"), "s"), Aggregate.countStar("n")));
      LogicalRel total = new LogicalRel.Aggregation(joined(t, u, "2"), List.of(), List.of(Aggregate.max(col("v2"), "top"),
          Aggregate.countStar("all")));
      LogicalRel cross = totalOnTheLeft ? new LogicalRel.Cross(total, grouped) : new LogicalRel.Cross(grouped, total);
      LogicalRel plan = new LogicalRel.Filter(cross, col("n").mul(lit(4L)).ge(col("all")));
      assertSharedOnce(memory, plan, CommonSubtrees.rewrite(plan, FEW, ids()));
    }
  }

  @Example
  void aSubtreeReadThreeTimesOrAtTwoPlacesIsComputedOnce(EngineMemory memory) {
    try (Table t = KeyValueTables.of(memory, "k", "v", List.of(1L, 1L, 2L, 3L, Long.MAX_VALUE));
        Table u = KeyValueTables.of(memory, "k", "v", List.of(1L, 2L, 2L, 5L, 1L, 3L))) {
      LogicalRel three = new LogicalRel.Cross(new LogicalRel.Cross(sums(joined(t, u, ""), ""),
          sums(joined(t, u, "2"), "2")), sums(joined(t, u, "3"), "3"));
      LogicalRel once = CommonSubtrees.rewrite(three, FEW, ids());
      assertSharedOnce(memory, three, once);
      assertEquals(2, Explain.of(once).split("shared #1 \\(as above\\)", -1).length - 1, Explain.of(once));
      LogicalRel node = joined(t, u, "");
      LogicalRel twice = new LogicalRel.Cross(sums(node, ""), new LogicalRel.Aggregation(node, List.of(),
          List.of(Aggregate.max(col("v"), "top"))));
      assertSharedOnce(memory, twice, CommonSubtrees.rewrite(twice, FEW, ids()));
    }
  }

  @Example
  void subtreesThatDifferAreCheapAreOrderedOrKeepManyRowsAreNotShared(EngineMemory memory) {
    try (Table t = KeyValueTables.of(memory, "k", "v", List.of(1L, 2L)); Table u = KeyValueTables.of(memory, "k", "v",
        List.of(1L))) {
      LogicalRel other = new LogicalRel.Join(JoinKind.INNER, scan("t", t, "2"),
          new LogicalRel.Filter(scan("u", u, "u2"), col("vu2").ge(lit(1L))), List.of("k2"), List.of("ku2"));
      LogicalRel differ = new LogicalRel.Cross(sums(joined(t, u, ""), ""), sums(other, "2"));
      assertEquals(differ, CommonSubtrees.rewrite(differ, FEW, ids()), "another condition");
      LogicalRel cheap = new LogicalRel.Cross(new LogicalRel.Filter(scan("t", t, ""), col("v").gt(lit(0L))),
          new LogicalRel.Filter(scan("t", t, "2"), col("v2").gt(lit(0L))));
      assertEquals(cheap, CommonSubtrees.rewrite(cheap, FEW, ids()), "a filtered scan is read again");
      LogicalRel many = new LogicalRel.Cross(joined(t, u, ""), joined(t, u, "2"));
      assertEquals(many, CommonSubtrees.rewrite(many, MANY, ids()), "most of a large join is computed again");
      LogicalRel tiny = new LogicalRel.Cross(sums(joined(t, u, ""), ""), sums(joined(t, u, "2"), "2"));
      assertEquals(tiny, CommonSubtrees.rewrite(tiny, new CardinalityEstimator(scan -> TableStatistics.supplied(1_000,
          Map.of())), ids()), "tables of one chunk are read again");
      LogicalRel ordered = new LogicalRel.Cross(new LogicalRel.Limit(new LogicalRel.Sort(joined(t, u, ""),
          List.of(SortKey.asc("v"))), 1), new LogicalRel.Limit(new LogicalRel.Sort(joined(t, u, "2"),
          List.of(SortKey.asc("v2"))), 1));
      LogicalRel.Cross rewritten = (LogicalRel.Cross) CommonSubtrees.rewrite(ordered, FEW, ids());
      assertTrue(rewritten.left() instanceof LogicalRel.Limit left && left.input() instanceof LogicalRel.Sort
          && rewritten.right() instanceof LogicalRel.Limit right && right.input() instanceof LogicalRel.Sort,
          "a sorted subtree is not shared, only the join below it: " + Explain.of(rewritten));
      assertTrue(Explain.of(rewritten).contains("shared #1 (as above)"), Explain.of(rewritten));
    }
  }

  @Property(tries = 80)
  void aTableSemiJoinedElsewhereIsReducedOnceWithTheSameRows(@ForAll("keys") @Size(max = 40) List<Long> large,
      @ForAll("keys") @Size(max = 12) List<Long> small, @ForAll boolean filterBetweenTheJoins, EngineMemory memory) {
    try (Table t = KeyValueTables.of(memory, "k", "v", large); Table u = KeyValueTables.of(memory, "k", "v", small)) {
      LogicalRel plan = lowest(t, chosen(u), chosen(u), filterBetweenTheJoins);
      assertShared(memory, plan, SharedSemiJoin.rewrite(plan, FEW, ids()), 2); // u's chosen rows and t's semi joined
    }
  }

  @Example
  void aSemiJoinToOtherRowsOnOtherPairsOrKeepingMostOfItsTableIsLeftAloneAndATableReadWholeIsReadAgain(EngineMemory memory) {
    try (Table t = KeyValueTables.of(memory, "k", "v", List.of(1L, 2L)); Table u = KeyValueTables.of(memory, "k", "v",
        List.of(1L))) {
      LogicalRel otherRows = lowest(t, scan("u", u, "u"), chosen(u), true);
      assertEquals(otherRows, SharedSemiJoin.rewrite(otherRows, FEW, ids()), "the semi join reads all of u");
      LogicalRel whole = lowest(t, scan("u", u, "u"), scan("u", u, "u"), true);
      assertShared(memory, whole, SharedSemiJoin.rewrite(whole, FEW, ids()), 1); // u read whole is read again
      LogicalRel many = lowest(t, chosen(u), chosen(u), true);
      assertEquals(many, SharedSemiJoin.rewrite(many, MANY, ids()), "the semi join keeps most of t");
      LogicalRel minimum = new LogicalRel.Aggregation(new LogicalRel.Join(JoinKind.SEMI, scan("t", t, "2"), chosen(u),
          List.of("v2"), List.of("ku")), List.of(col("k2").as("k2")), List.of(Aggregate.min(col("v2"), "m")));
      LogicalRel otherPairs = new LogicalRel.Join(JoinKind.INNER, new LogicalRel.Join(JoinKind.INNER, chosen(u),
          scan("t", t, ""), List.of("ku"), List.of("k")), minimum, List.of("k"), List.of("k2"));
      assertEquals(otherPairs, SharedSemiJoin.rewrite(otherPairs, FEW, ids()), "the semi join pairs v, not k");
    }
  }

  @Property(tries = 80)
  void aTotalOverTheRowsAnotherAggregationGroupsIsTakenOverItsGroupsWithTheSameRows(
      @ForAll("keys") @Size(max = 40) List<Long> large, @ForAll("keys") @Size(max = 12) List<Long> small,
      EngineMemory memory) {
    try (Table t = KeyValueTables.of(memory, "k", "v", large); Table u = KeyValueTables.of(memory, "k", "v", small)) {
      LogicalRel perKey = new LogicalRel.Filter(new LogicalRel.Join(JoinKind.INNER, perKeyAndValue(t, u),
          total(t, u, true, Aggregate.Function.SUM, Aggregate.Function.MAX), List.of("k"), List.of("tk")),
          col("s").mul(lit(3L)).ge(col("total")));
      LogicalRel overAll = new LogicalRel.Cross(perKeyAndValue(t, u), total(t, u, false, Aggregate.Function.MIN,
          Aggregate.Function.SUM));
      for (LogicalRel plan : List.of(perKey, overAll)) {
        assertSharedOnce(memory, plan, TotalFromGroups.rewrite(plan, RepeatedSubtreeProperties::exact, ids()));
      }
    }
  }

  @Example
  void aTotalOfAnotherFunctionTypeInputOrKeyIsTakenOverItsRows(EngineMemory memory) {
    try (Table t = KeyValueTables.of(memory, "k", "v", List.of(1L, 2L)); Table u = KeyValueTables.of(memory, "k", "v",
        List.of(1L))) {
      LogicalRel average = new LogicalRel.Cross(perKeyAndValue(t, u), total(t, u, false, Aggregate.Function.AVG,
          Aggregate.Function.MAX));
      assertEquals(average, TotalFromGroups.rewrite(average, RepeatedSubtreeProperties::exact, ids()), "an average");
      LogicalRel sums = new LogicalRel.Cross(perKeyAndValue(t, u), total(t, u, false, Aggregate.Function.SUM,
          Aggregate.Function.MAX));
      assertEquals(sums, TotalFromGroups.rewrite(sums, name -> ColumnType.FLOAT64, ids()), "floating point");
      assertEquals(sums, TotalFromGroups.rewrite(sums, name -> null, ids()), "an unknown type");
      LogicalRel other = new LogicalRel.Cross(perKeyAndValue(t, u), new LogicalRel.Aggregation(
          new LogicalRel.Project(joined(t, u, "2"), List.of(col("v2").mul(lit(2L)).as("e2"))), List.of(),
          List.of(Aggregate.sum(col("e2"), "total"))));
      assertEquals(other, TotalFromGroups.rewrite(other, RepeatedSubtreeProperties::exact, ids()), "another expression");
      LogicalRel byValue = new LogicalRel.Cross(perKeyAndValue(t, u), new LogicalRel.Aggregation(
          new LogicalRel.Project(joined(t, u, "2"), List.of(col("ku2").as("tk"), col("v2").mul(lit(2L)).as("e2"))),
          List.of(col("tk").as("tk")), List.of(Aggregate.sum(col("e2"), "total"))));
      assertEquals(byValue, TotalFromGroups.rewrite(byValue, RepeatedSubtreeProperties::exact, ids()),
          "a key the groups do not have");
    }
  }

  /** The sum, minimum and maximum of {@code 2v} per key and value of {@code t} joined to the chosen rows of {@code u}. */
  private static LogicalRel perKeyAndValue(Table t, Table u) {
    return new LogicalRel.Aggregation(new LogicalRel.Project(joined(t, u, ""), List.of(col("k").as("k"),
        col("v").as("v"), col("v").add(col("v")).as("e"))), List.of(col("k").as("k"), col("v").as("gv")),
        List.of(Aggregate.sum(col("e"), "s"), Aggregate.min(col("e"), "lo"), Aggregate.max(col("e"), "hi")));
  }

  /** {@code first} and {@code second} of {@code 2v} over the same rows, per key where {@code grouped}. */
  private static LogicalRel total(Table t, Table u, boolean grouped, Aggregate.Function first,
      Aggregate.Function second) {
    List<dev.memwall.core.expr.NamedExpr> outputs = new ArrayList<>(List.of(col("v2").add(col("v2")).as("e2")));
    if (grouped) {
      outputs.add(col("k2").as("tk"));
    }
    return new LogicalRel.Aggregation(new LogicalRel.Project(joined(t, u, "2"), outputs),
        grouped ? List.of(col("tk").as("tk")) : List.of(),
        List.of(new Aggregate(first, col("e2"), "total"), new Aggregate(second, col("e2"), "top")));
  }

  /** The measures' types as the converter records them: integers. */
  private static ColumnType exact(String name) {
    return ColumnType.INT64;
  }

  @Example
  void aBudgetTooSmallForTheSharedRowsFailsByNameAndLeaksNothing(EngineMemory memory) {
    List<Long> keys = new ArrayList<>();
    for (long i = 0; i < 20_000; i++) {
      keys.add(i % 7);
    }
    try (Table t = KeyValueTables.of(memory, "k", "v", keys); Table u = KeyValueTables.of(memory, "k", "v",
        List.of(1L, 2L, 3L))) {
      LogicalRel plan = CommonSubtrees.rewrite(new LogicalRel.Cross(sums(joined(t, u, ""), ""),
          sums(joined(t, u, "2"), "2")), FEW, ids());
      try (EngineMemory tiny = EngineMemory.create(MemoryBudget.of("tiny", 64 * 1024), 0)) {
        BudgetExceededException e = assertThrows(BudgetExceededException.class,
            () -> LogicalRuns.sortedRows(tiny, plan));
        assertTrue(e.getMessage().contains("tiny"), e.getMessage());
        assertEquals(0, tiny.arrow().getAllocatedMemory(), "the shared rows are freed");
      }
    }
  }

  /** That {@code rewritten} reads one shared relation at two places or more and has {@code plan}'s rows. */
  private static void assertSharedOnce(EngineMemory memory, LogicalRel plan, LogicalRel rewritten) {
    assertShared(memory, plan, rewritten, 1);
  }

  /** That {@code rewritten} reads {@code relations} shared relations, each at two places or more, and has {@code plan}'s rows. */
  private static void assertShared(EngineMemory memory, LogicalRel plan, LogicalRel rewritten, int relations) {
    assertNotEquals(plan, rewritten);
    String text = Explain.of(rewritten);
    for (int id = 1; id <= relations; id++) {
      assertTrue(text.contains("shared #" + id + " (as above)"), text);
    }
    assertTrue(!text.contains("shared #" + (relations + 1)), text);
    assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, rewritten));
  }

  /**
   * The rows of {@code t} joined to {@code rows} of {@code u} and to the minimum {@code v} of its rows
   * semi joined to {@code semiRows} per key, those at the minimum; Q2's decorrelated shape.
   */
  private static LogicalRel lowest(Table t, LogicalRel semiRows, LogicalRel rows, boolean filterBetweenTheJoins) {
    LogicalRel minimum = new LogicalRel.Aggregation(new LogicalRel.Join(JoinKind.SEMI, scan("t", t, "2"), semiRows,
        List.of("k2"), List.of("ku")), List.of(col("k2").as("k2")), List.of(Aggregate.min(col("v2"), "m")));
    LogicalRel atMinimum = new LogicalRel.Join(JoinKind.INNER, scan("t", t, ""), minimum, List.of("k"), List.of("k2"));
    if (filterBetweenTheJoins) {
      return new LogicalRel.Join(JoinKind.INNER, rows, new LogicalRel.Filter(atMinimum, col("v").eq(col("m"))),
          List.of("ku"), List.of("k"));
    }
    return new LogicalRel.Filter(new LogicalRel.Join(JoinKind.INNER, atMinimum, rows, List.of("k"),
        List.of("ku")), col("v").eq(col("m")));
  }

  /** {@code t} joined to the chosen rows of {@code u}, its columns suffixed {@code suffix}. */
  private static LogicalRel joined(Table t, Table u, String suffix) {
    LogicalRel chosen = new LogicalRel.Filter(scan("u", u, "u" + suffix), col("vu" + suffix).gt(lit(0L)));
    return new LogicalRel.Join(JoinKind.INNER, scan("t", t, suffix), chosen, List.of("k" + suffix),
        List.of("ku" + suffix));
  }

  private static LogicalRel chosen(Table u) {
    return new LogicalRel.Filter(scan("u", u, "u"), col("vu").gt(lit(0L)));
  }

  /** The sum of {@code v} per key of {@code rel}, its columns suffixed {@code suffix}. */
  private static LogicalRel sums(LogicalRel rel, String suffix) {
    return new LogicalRel.Aggregation(rel, List.of(col("k" + suffix).as("k" + suffix)),
        List.of(Aggregate.sum(col("v" + suffix), "s" + suffix)));
  }

  @Provide
  Arbitrary<List<Long>> keys() {
    return KeyValueTables.keys();
  }
}
