package dev.memwall.substrait;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.substrait.LogicalRuns.ids;
import static dev.memwall.substrait.LogicalRuns.scan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.Explain;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.optimizer.CardinalityEstimator;
import dev.memwall.substrait.optimizer.ColumnStatistics;
import dev.memwall.substrait.optimizer.CommonAggregations;
import dev.memwall.substrait.optimizer.GroupReduction;
import dev.memwall.substrait.optimizer.TableStatistics;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.junit.jupiter.api.Assertions;

/**
 * The rewrites that share a relation between its readers ({@link CommonAggregations}, {@link
 * GroupReduction}) and the lowering of uncorrelated scalar subqueries into literals, each against
 * the plan it rewrites, both run: tables {@code (k, v)} whose keys are skewed, repeated, null and
 * at the type's limits, values null in places, tables possibly empty. Every run is checked for
 * leaks, the shared results included.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class SharedRelationsProperties {
  /** Statistics under which the outer table is tiny and the grouped one large, so that the reduction applies. */
  private static final CardinalityEstimator OUTER_SMALL = new CardinalityEstimator(scan -> scan.table().equals("o")
      ? TableStatistics.supplied(10, Map.of("k", ColumnStatistics.distinct(10)))
      : TableStatistics.supplied(1_000_000, Map.of("k", ColumnStatistics.distinct(1_000_000))));
  private static final CardinalityEstimator OUTER_LARGE = new CardinalityEstimator(
      scan -> TableStatistics.supplied(1_000_000, Map.of("k", ColumnStatistics.distinct(1_000_000))));

  @Property(tries = 60)
  void aJoinedAggregationGroupedOnlyForTheOtherSidesKeysGivesTheSameRows(
      @ForAll("keys") @Size(max = 20) List<Long> outer, @ForAll("keys") @Size(max = 60) List<Long> inner,
      @ForAll JoinKind kind, @ForAll boolean aggregationOnTheLeft, @ForAll boolean groupsFiltered,
      EngineMemory memory) {
    try (Table o = table(memory, outer); Table i = table(memory, inner)) {
      LogicalRel plan = reducible(o, i, kind, aggregationOnTheLeft, groupsFiltered);
      LogicalRel rewritten = GroupReduction.rewrite(plan, OUTER_SMALL, ids());
      boolean applies = kind == JoinKind.INNER || !aggregationOnTheLeft; // semi, anti, outer: the build side only
      if (applies) {
        assertNotEquals(plan, rewritten);
      } else {
        assertEquals(plan, rewritten);
      }
      assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, rewritten));
    }
  }

  @Example
  void theGroupingIsNotReducedWhereTheOtherSideIsLargeOrATableReadWholeOrTheJoinReadsAMeasure(EngineMemory memory) {
    try (Table o = table(memory, List.of(1L)); Table i = table(memory, List.of(1L))) {
      LogicalRel large = reducible(o, i, JoinKind.INNER, true);
      assertEquals(large, GroupReduction.rewrite(large, OUTER_LARGE, ids()));
      LogicalRel whole = new LogicalRel.Join(JoinKind.INNER, scan("o", o, ""), grouped(i), List.of("k"), List.of("ki"));
      assertEquals(whole, GroupReduction.rewrite(whole, OUTER_SMALL, ids()));
      LogicalRel onMeasure = new LogicalRel.Join(JoinKind.INNER, scan("o", o, ""), grouped(i),
          List.of("k"), List.of("hi"));
      assertEquals(onMeasure, GroupReduction.rewrite(onMeasure, OUTER_SMALL, ids()));
    }
  }

  @Property(tries = 60)
  void anAggregationComputedTwiceIsComputedOnceWithTheSameRows(@ForAll("keys") @Size(max = 40) List<Long> keys,
      @ForAll("keys") @Size(max = 40) List<Long> other, EngineMemory memory) {
    try (Table t = table(memory, keys); Table u = table(memory, other)) {
      // the rows of one grouping whose sum is the largest sum of the same grouping, read twice (TPC-H Q15's shape)
      LogicalRel first = sums(t, "");
      LogicalRel second = new LogicalRel.Aggregation(sums(t, "2"), List.of(), List.of(Aggregate.max(col("s2"), "top")));
      LogicalRel plan = new LogicalRel.Filter(new LogicalRel.Join(JoinKind.INNER,
          new LogicalRel.Cross(first, second), scan("u", u, "u"), List.of("k"), List.of("ku")),
          col("s").eq(col("top")));
      LogicalRel rewritten = CommonAggregations.rewrite(plan, ids());
      assertNotEquals(plan, rewritten);
      Assertions.assertTrue(Explain.of(rewritten).contains("shared #1 (as above)"), Explain.of(rewritten));
      assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, rewritten));
    }
  }

  @Example
  void aggregationsThatDifferAreNotShared(EngineMemory memory) {
    try (Table t = table(memory, List.of(1L, 2L)); Table u = table(memory, List.of(1L, 2L))) {
      LogicalRel base = sums(t, "");
      List<LogicalRel> others = List.of(
          sums(u, "2"), // another table
          new LogicalRel.Aggregation(new LogicalRel.Filter(scan("t", t, "2"), col("v2").gt(lit(1L))),
              List.of(col("k2").as("k2")), List.of(Aggregate.sum(col("v2"), "s2"))), // another condition
          new LogicalRel.Aggregation(new LogicalRel.Filter(scan("t", t, "2"), col("v2").gt(lit(0L))),
              List.of(col("k2").as("k2")), List.of(Aggregate.min(col("v2"), "s2"))), // another function
          new LogicalRel.Aggregation(new LogicalRel.Filter(scan("t", t, "2"), col("v2").gt(lit(0L))),
              List.of(col("v2").as("k2")), List.of(Aggregate.sum(col("v2"), "s2")))); // another key
      for (LogicalRel other : others) {
        LogicalRel plan = new LogicalRel.Cross(base, other);
        assertEquals(plan, CommonAggregations.rewrite(plan, ids()), Explain.of(plan));
      }
    }
  }

  @Property(tries = 60)
  void anUncorrelatedScalarRunsFirstAndIsComparedAsALiteral(@ForAll("keys") @Size(max = 30) List<Long> rows,
      @ForAll("keys") @Size(max = 30) List<Long> values, @ForAll("scalar") Aggregate.Function function, @ForAll boolean star,
      EngineMemory memory) {
    try (Table t = table(memory, rows); Table u = table(memory, values)) {
      Aggregate measure = function == Aggregate.Function.COUNT && star ? Aggregate.countStar("x")
          : new Aggregate(function, col("ku"), "x");
      LogicalRel value = new LogicalRel.Aggregation(scan("u", u, "u"), List.of(), List.of(measure));
      Expr above = col("k").ge(col("x"));
      LogicalRel plan = new LogicalRel.Filter(new LogicalRel.Cross(scan("t", t, ""), value), above);
      // the reference: the same value behind a limit, which is not known to be one row, joined in by the cross
      LogicalRel joinedIn = new LogicalRel.Filter(new LogicalRel.Cross(scan("t", t, ""),
          new LogicalRel.Limit(value, 1)), above);
      assertEquals(LogicalRuns.sortedRows(memory, joinedIn), LogicalRuns.sortedRows(memory, plan));
    }
  }

  @Example
  void anAverageIsComparedAsAFloatingPointLiteral(EngineMemory memory) {
    try (Table t = table(memory, List.of(1L, 2L, 3L, 4L)); Table u = table(memory, List.of(2L, 3L))) {
      LogicalRel value = new LogicalRel.Aggregation(scan("u", u, "u"), List.of(), List.of(Aggregate.avg(col("ku"), "x")));
      LogicalRel plan = new LogicalRel.Project(new LogicalRel.Filter(new LogicalRel.Cross(scan("t", t, ""), value),
          col("k").gt(col("x"))), List.of(col("k").as("k")));
      assertEquals(List.of(List.of(3L), List.of(4L)), LogicalRuns.sortedRows(memory, plan));
    }
  }

  @Example
  void aScalarOverNoRowsIsNullAndKeepsNoRowItIsComparedWith(EngineMemory memory) {
    try (Table t = table(memory, List.of(1L, 2L)); Table u = table(memory, List.of())) {
      LogicalRel value = new LogicalRel.Aggregation(scan("u", u, "u"), List.of(), List.of(Aggregate.max(col("ku"), "x")));
      LogicalRel plan = new LogicalRel.Filter(new LogicalRel.Cross(scan("t", t, ""), value), col("k").ge(col("x")));
      assertEquals(List.of(), LogicalRuns.sortedRows(memory, plan));
      LogicalRel kept = new LogicalRel.Project(new LogicalRel.Cross(scan("t", t, ""), value),
          List.of(col("k").as("k"), col("x").as("x")));
      List<List<Object>> rows = LogicalRuns.sortedRows(memory, kept);
      assertEquals(2, rows.size());
      rows.forEach(row -> assertEquals(null, row.get(1)));
    }
  }

  @Example
  void aPlanFailingAfterItsSharedResultRanFreesIt(EngineMemory memory) {
    try (Table t = table(memory, List.of(Long.MAX_VALUE, 1L, Long.MAX_VALUE, 2L, 3L))) {
      // the largest key per value, shared; the sum of those keys overflows once the shared result exists
      LogicalRel largest = new LogicalRel.Shared(1, new LogicalRel.Aggregation(scan("t", t, ""),
          List.of(col("v").as("v")), List.of(Aggregate.max(col("k"), "top"))));
      LogicalRel total = new LogicalRel.Aggregation(largest, List.of(), List.of(Aggregate.sum(col("top"), "total")));
      LogicalRel plan = new LogicalRel.Cross(largest, total);
      Assertions.assertThrows(ArithmeticException.class, () -> LogicalRuns.sortedRows(memory, plan));
    }
  }

  @Example
  void aSharedRelationIsLoweredOnlyThroughTheRoot(EngineMemory memory) {
    try (Table t = table(memory, List.of(1L))) {
      LogicalRel shared = new LogicalRel.Shared(1, scan("t", t, ""));
      var lowering = new RelationLowering(new dev.memwall.core.plan.ExecutionContext(memory, 1));
      IllegalStateException e = Assertions.assertThrows(IllegalStateException.class,
          () -> lowering.lower(shared, java.util.Set.of("k")));
      Assertions.assertTrue(e.getMessage().contains("lowerRoot"), e.getMessage());
    }
  }

  /** {@code o}'s rows with a positive value joined on their key with {@code i} grouped by key. */
  private static LogicalRel reducible(Table o, Table i, JoinKind kind, boolean aggregationOnTheLeft) {
    return reducible(o, i, kind, aggregationOnTheLeft, false);
  }

  /** As above, {@code groupsFiltered}: the groups filtered by their extremes, as Q21's NOT EXISTS has them. */
  private static LogicalRel reducible(Table o, Table i, JoinKind kind, boolean aggregationOnTheLeft,
      boolean groupsFiltered) {
    LogicalRel outer = new LogicalRel.Filter(scan("o", o, ""), col("v").gt(lit(0L)));
    LogicalRel groups = groupsFiltered ? new LogicalRel.Filter(grouped(i), col("lo").ne(col("hi"))) : grouped(i);
    return aggregationOnTheLeft
        ? new LogicalRel.Join(kind, groups, outer, List.of("ki"), List.of("k"))
        : new LogicalRel.Join(kind, outer, groups, List.of("k"), List.of("ki"));
  }

  private static LogicalRel grouped(Table i) {
    return new LogicalRel.Aggregation(scan("i", i, "i"), List.of(col("ki").as("ki")), List.of(
        Aggregate.min(col("vi"), "lo"), Aggregate.max(col("vi"), "hi"), Aggregate.countStar("n")));
  }

  /** The sums of {@code v} by {@code k} over the rows with a positive {@code v}, columns suffixed {@code suffix}. */
  private static LogicalRel sums(Table table, String suffix) {
    return new LogicalRel.Aggregation(new LogicalRel.Filter(scan("t", table, suffix), col("v" + suffix).gt(lit(0L))),
        List.of(col("k" + suffix).as("k" + suffix)), List.of(Aggregate.sum(col("v" + suffix), "s" + suffix)));
  }

  private static Table table(EngineMemory memory, List<Long> keys) {
    return KeyValueTables.of(memory, "k", "v", keys);
  }

  @Provide
  Arbitrary<List<Long>> keys() {
    return KeyValueTables.keys();
  }

  /** The functions of the scalar (a sum or average overflows at the keys' limits, in both plans alike). */
  @Provide
  Arbitrary<Aggregate.Function> scalar() {
    return Arbitraries.of(Aggregate.Function.MIN, Aggregate.Function.MAX, Aggregate.Function.COUNT);
  }
}
