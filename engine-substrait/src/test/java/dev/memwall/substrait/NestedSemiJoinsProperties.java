package dev.memwall.substrait;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.substrait.LogicalRuns.ids;
import static dev.memwall.substrait.LogicalRuns.scan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import dev.memwall.substrait.optimizer.NestedSemiJoins;
import dev.memwall.substrait.optimizer.TableStatistics;
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
 * {@link NestedSemiJoins} against the plans it rewrites, both run, in TPC-H Q21's shape: lines
 * {@code (k, v)} semi-joined with the chosen outer rows are grouped, the groups joined back to the
 * chosen rows and filtered, and lines read again with a filter of their own are semi-joined with
 * those; keys skewed, repeated, null and at the type's limits, values null in places, tables
 * possibly empty. The statistics make the lines many and the chosen rows few, so that it applies.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class NestedSemiJoinsProperties {
  private static final CardinalityEstimator FEW_CHOSEN = new CardinalityEstimator(scan -> scan.table().equals("o")
      ? TableStatistics.supplied(10, Map.of("ko", ColumnStatistics.distinct(10)))
      : TableStatistics.supplied(1_000_000, Map.of("k", ColumnStatistics.distinct(100_000))));
  private static final CardinalityEstimator MANY_CHOSEN = new CardinalityEstimator(
      scan -> TableStatistics.supplied(1_000_000, Map.of("k", ColumnStatistics.distinct(100), "ko",
          ColumnStatistics.distinct(100))));

  @Property(tries = 80)
  void aSemiJoinWhoseKeysAreAmongAnothersReadsItsRowsWithTheSameRows(
      @ForAll("keys") @Size(max = 40) List<Long> lines, @ForAll("keys") @Size(max = 12) List<Long> outer,
      @ForAll boolean firstFiltered, EngineMemory memory) {
    try (Table l = KeyValueTables.of(memory, "k", "v", lines); Table o = KeyValueTables.of(memory, "ko", "vo", outer)) {
      LogicalRel chosen = chosen(o);
      LogicalRel first = new LogicalRel.Join(JoinKind.SEMI, firstFiltered
          ? new LogicalRel.Filter(scan("l", l, "2"), col("v2").gt(lit(0L))) : scan("l", l, "2"), chosen, List.of("k2"),
          List.of("ko"));
      LogicalRel plan = shape(l, chosen, first, "ko", col("v3").gt(lit(0L)));
      LogicalRel rewritten = NestedSemiJoins.rewrite(plan, FEW_CHOSEN, ids());
      assertNotEquals(plan, rewritten);
      assertTrue(Explain.of(rewritten).contains("shared #1"), Explain.of(rewritten));
      assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, rewritten));
    }
  }

  @Example
  void otherKeysOtherFiltersOrAFirstJoinKeepingMostOfTheTableAreLeftAlone(EngineMemory memory) {
    try (Table l = KeyValueTables.of(memory, "k", "v", List.of(1L, 2L, 2L)); Table o = KeyValueTables.of(memory, "ko",
        "vo", List.of(1L, 2L))) {
      LogicalRel chosen = chosen(o);
      LogicalRel first = new LogicalRel.Join(JoinKind.SEMI, scan("l", l, "2"), chosen, List.of("k2"), List.of("ko"));
      LogicalRel filteredFirst = new LogicalRel.Join(JoinKind.SEMI, new LogicalRel.Filter(scan("l", l, "2"),
          col("v2").lt(lit(2L))), chosen, List.of("k2"), List.of("ko"));
      List<LogicalRel> kept = List.of(
          shape(l, chosen, first, "vo", col("v3").gt(lit(0L))), // the second join's keys are the outer values
          shape(l, chosen, filteredFirst, "ko", col("v3").gt(lit(0L))), // the first join's filter is not the second's
          shape(l, chosen, first, "n", col("v3").gt(lit(0L)))); // the keys are counts, computed
      for (LogicalRel plan : kept) {
        assertEquals(plan, NestedSemiJoins.rewrite(plan, FEW_CHOSEN, ids()), Explain.of(plan));
      }
      LogicalRel most = shape(l, chosen, first, "ko", col("v3").gt(lit(0L)));
      assertEquals(most, NestedSemiJoins.rewrite(most, MANY_CHOSEN, ids()), "holding most of the lines costs more");
      LogicalRel otherOuter = new LogicalRel.Join(JoinKind.SEMI, new LogicalRel.Filter(scan("l", l, "3"),
          col("v3").gt(lit(0L))), new LogicalRel.Filter(scan("o", o), col("vo").eq(lit(2L))),
          List.of("k3"), List.of("ko"));
      LogicalRel apart = new LogicalRel.Join(JoinKind.INNER, otherOuter, first, List.of("k3"), List.of("k2"));
      assertEquals(apart, NestedSemiJoins.rewrite(apart, FEW_CHOSEN, ids()), "other outer rows' keys");
    }
  }

  /** The outer rows whose value is 1 or null-free 2: few by the statistics. */
  private static LogicalRel chosen(Table o) {
    return new LogicalRel.Filter(scan("o", o), col("vo").ge(lit(1L)));
  }

  /**
   * The lines (read a third time, filtered by {@code condition}) semi-joined on their key with
   * {@code chosen} joined to the groups of {@code first} (the lines read a second time semi-joined
   * with {@code chosen}) that have more than one line, on that join's column {@code key}.
   */
  private static LogicalRel shape(Table l, LogicalRel chosen, LogicalRel first, String key, Expr condition) {
    LogicalRel groups = new LogicalRel.Aggregation(first, List.of(col("k2").as("g")),
        List.of(Aggregate.countStar("n"), Aggregate.min(col("v2"), "lo")));
    LogicalRel several = new LogicalRel.Filter(new LogicalRel.Join(JoinKind.INNER, chosen, groups, List.of("ko"),
        List.of("g")), col("n").gt(lit(1L)));
    LogicalRel second = new LogicalRel.Join(JoinKind.SEMI, new LogicalRel.Filter(scan("l", l, "3"), condition), several,
        List.of("k3"), List.of(key));
    return new LogicalRel.Aggregation(second, List.of(col("k3").as("k3")), List.of(Aggregate.countStar("c"),
        Aggregate.sum(col("v3"), "s")));
  }

  @Provide
  Arbitrary<List<Long>> keys() {
    return KeyValueTables.keys();
  }
}
