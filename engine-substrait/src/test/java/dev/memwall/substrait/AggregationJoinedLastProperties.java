package dev.memwall.substrait;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.Explain;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.optimizer.AggregationJoinedLast;
import dev.memwall.substrait.optimizer.CardinalityEstimator;
import dev.memwall.substrait.optimizer.ColumnStatistics;
import dev.memwall.substrait.optimizer.TableStatistics;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link AggregationJoinedLast} against the plans it rewrites, both run, in TPC-H Q21's shape: the
 * filtered outer rows {@code o(ko, vo)} joined on their declared key to lines {@code l(k, v)}
 * joined to the lines' groups and filtered on the groups' measures. The declared key is not
 * checked, so the tables repeat it: keys skewed, repeated, null and at the type's limits, values
 * null in places, tables possibly empty.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class AggregationJoinedLastProperties {
  private static final CardinalityEstimator ESTIMATES = new CardinalityEstimator(scan -> TableStatistics.supplied(
      1_000, Map.of("k", ColumnStatistics.distinct(100), "ko", ColumnStatistics.distinct(1_000),
          "vo", ColumnStatistics.distinct(3))));
  private static final Function<LogicalRel.Scan, List<List<String>>> KO_IS_A_KEY = scan -> scan.table().equals("o")
      ? List.of(List.of("ko")) : List.of();

  @Property(tries = 80)
  void anAggregationJoinedAfterTheReducingJoinGivesTheSameRows(
      @ForAll("keys") @Size(max = 30) List<Long> lines, @ForAll("keys") @Size(max = 12) List<Long> outer,
      @ForAll boolean filtered, EngineMemory memory) {
    try (Table l = KeyValueTables.of(memory, "k", "v", lines); Table o = KeyValueTables.of(memory, "ko", "vo", outer)) {
      LogicalRel plan = shape(chosen(o), l, "k2", "k", filtered);
      LogicalRel rewritten = AggregationJoinedLast.rewrite(plan, KO_IS_A_KEY, ESTIMATES);
      assertNotEquals(plan, rewritten);
      LogicalRel.Join top = (LogicalRel.Join) (filtered ? ((LogicalRel.Filter) rewritten).input() : rewritten);
      assertInstanceOf(LogicalRel.Aggregation.class, top.left(), "the aggregation is joined last: " + top);
      // the columns come in another order, and are found by name
      LogicalRel reordered = new LogicalRel.Project(rewritten, plan.columns().stream().map(c -> col(c).as(c)).toList());
      assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, reordered));
    }
  }

  @Example
  void anUnfilteredOrKeylessOuterSideOrAJoinOnTheGroupsIsLeftAlone(EngineMemory memory) {
    try (Table l = KeyValueTables.of(memory, "k", "v", List.of(1L, 2L, 2L));
        Table o = KeyValueTables.of(memory, "ko", "vo", List.of(1L, 2L))) {
      List<LogicalRel> kept = List.of(
          shape(LogicalRuns.scan("o", o), l, "k2", "k", true), // the outer rows are all of the table
          shape(chosen(o), l, "n", "k", true), // the groups are joined on a measure
          shape(chosen(o), l, "k2", "k2", true)); // the outer rows are joined to the groups
      for (LogicalRel plan : kept) {
        assertEquals(plan, AggregationJoinedLast.rewrite(plan, KO_IS_A_KEY, ESTIMATES), Explain.of(plan));
      }
      LogicalRel keyless = shape(chosen(o), l, "k2", "k", true);
      assertEquals(keyless, AggregationJoinedLast.rewrite(keyless, scan -> List.of(), ESTIMATES),
          "without a declared key the join may repeat the lines");
    }
  }

  /** The outer rows whose value is at least 1. */
  private static LogicalRel chosen(Table o) {
    return new LogicalRel.Filter(LogicalRuns.scan("o", o), col("vo").ge(lit(1L)));
  }

  /**
   * {@code outer} joined on {@code ko} to {@code outerKey} of the lines joined on {@code groupKey}
   * to their groups by key ({@code k2, n, lo}), those of more than one line where {@code filtered}.
   */
  private static LogicalRel shape(LogicalRel outer, Table l, String groupKey, String outerKey, boolean filtered) {
    LogicalRel groups = new LogicalRel.Aggregation(new LogicalRel.Scan("l", l, List.of("k", "v"), List.of("k2", "v2")),
        List.of(col("k2").as("k2")), List.of(Aggregate.countStar("n"), Aggregate.min(col("v2"), "lo")));
    LogicalRel joined = new LogicalRel.Join(JoinKind.INNER, groups, LogicalRuns.scan("l", l), List.of(groupKey),
        List.of("k"));
    LogicalRel inner = filtered ? new LogicalRel.Filter(joined, col("n").gt(lit(1L))) : joined;
    return new LogicalRel.Join(JoinKind.INNER, outer, inner, List.of("ko"), List.of(outerKey));
  }

  @Provide
  Arbitrary<List<Long>> keys() {
    return KeyValueTables.keys();
  }
}
