package dev.memwall.substrait;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.substrait.LogicalRuns.ids;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.Closing;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.optimizer.BuildSideReduction;
import dev.memwall.substrait.optimizer.CardinalityEstimator;
import dev.memwall.substrait.optimizer.ColumnStatistics;
import dev.memwall.substrait.optimizer.RepeatedJoinInput;
import dev.memwall.substrait.optimizer.SharedAggregateInput;
import dev.memwall.substrait.optimizer.TableStatistics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link SharedAggregateInput}, {@link RepeatedJoinInput} and {@link BuildSideReduction} against the
 * plans they rewrite, both run: {@code lines(lk, v)} joined
 * to the chosen {@code parts(pk, flag)} and to the per-key aggregate of the lines of those parts,
 * TPC-H Q17's decorrelated shape. Keys repeat on both sides (a part listed twice), are skewed, null
 * and dangling, values are null in places, and either table may be empty. The estimates come from
 * supplied statistics that make lines large and the chosen parts few, so that sharing pays.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class JoinInputRewriteProperties {
  private static final CardinalityEstimator ESTIMATES = new CardinalityEstimator(scan -> scan.table().equals("lines")
      ? TableStatistics.supplied(1e6, Map.of("lk", ColumnStatistics.distinct(1e4)))
      : TableStatistics.supplied(1e4, Map.of("pk", ColumnStatistics.distinct(1e4),
          "flag", ColumnStatistics.distinct(100))));

  @Property(tries = 100)
  void theAggregateOverTheSharedRowsGivesTheSameRows(
      @ForAll @Size(max = 30) List<@IntRange(min = 0, max = 30) Integer> lines,
      @ForAll @Size(max = 8) List<@IntRange(min = 0, max = 12) Integer> parts,
      @ForAll boolean joinedToTheParts, EngineMemory memory) {
    try (Tables t = Tables.of(memory, lines, parts)) {
      LogicalRel chosen = t.chosenParts();
      LogicalRel subquery = t.subquery(new LogicalRel.Join(JoinKind.SEMI, t.linesCopy(), chosen, List.of("lk2"),
          List.of("pk")));
      LogicalRel joined = joinedToTheParts // as Q17's plan joins them: lines x (aggregate x parts)
          ? new LogicalRel.Join(JoinKind.INNER, t.lines(), new LogicalRel.Join(JoinKind.INNER, subquery, chosen,
              List.of("lk2"), List.of("pk")), List.of("lk"), List.of("pk"))
          : new LogicalRel.Join(JoinKind.INNER, new LogicalRel.Join(JoinKind.INNER, t.lines(), chosen, List.of("lk"),
              List.of("pk")), subquery, List.of("lk"), List.of("lk2"));
      LogicalRel plan = new LogicalRel.Project(new LogicalRel.Filter(joined, col("v").lt(col("s"))),
          List.of(col("lk").as("lk"), col("v").as("v"), col("s").as("s"), col("n").as("n"), col("flag").as("flag")));
      LogicalRel rewritten = SharedAggregateInput.rewrite(plan, ESTIMATES, ids());
      assertNotEquals(plan, rewritten);
      assertTrue(holds(rewritten, inner -> inner instanceof LogicalRel.Shared shared
          && shared.input() instanceof LogicalRel.Join semi && semi.kind() == JoinKind.SEMI),
          "the semi join is a shared relation: " + rewritten);
      assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, rewritten));
    }
  }

  @Property(tries = 100)
  void aProbeSideItsBuildSideRepeatsIsReadOnceWithTheSameRows(
      @ForAll @Size(max = 30) List<@IntRange(min = 0, max = 30) Integer> lines,
      @ForAll @Size(max = 8) List<@IntRange(min = 0, max = 12) Integer> parts, EngineMemory memory) {
    try (Tables t = Tables.of(memory, lines, parts)) {
      LogicalRel plan = repeated(t, t.chosenParts());
      LogicalRel rewritten = RepeatedJoinInput.rewrite(plan, ESTIMATES, ids());
      LogicalRel.Join join = (LogicalRel.Join) rewritten;
      assertInstanceOf(LogicalRel.Shared.class, join.left(), "the probe side is computed once");
      assertTrue(readsTheVeryNode(join.right(), join.left()), "the copy is replaced by the shared probe side");
      assertFalse(readsTheVeryNode(((LogicalRel.Join) plan).right(), ((LogicalRel.Join) plan).left()));
      assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, rewritten));
    }
  }

  @Example
  void aProbeSideThatIsAScanFilteredOrNotOrKeepsMostOfItsTableIsReadAgain(EngineMemory memory) {
    try (Tables t = Tables.of(memory, List.of(1, 2), List.of(1))) {
      for (LogicalRel plan : List.of(repeated(t, t.parts()), new LogicalRel.Join(JoinKind.INNER, t.lines(),
          new LogicalRel.Join(JoinKind.SEMI, t.linesCopy(), t.lines(), List.of("lk2"), List.of("lk")), List.of("lk"),
          List.of("lk2")), new LogicalRel.Join(JoinKind.INNER, t.chosenParts(), new LogicalRel.Join(JoinKind.SEMI,
              t.linesCopy(), t.chosenParts(), List.of("lk2"), List.of("pk")), List.of("pk"), List.of("lk2")))) {
        LogicalRel.Join join = (LogicalRel.Join) RepeatedJoinInput.rewrite(plan, ESTIMATES, ids());
        assertFalse(join.left() instanceof LogicalRel.Shared, plan.toString());
        assertFalse(readsTheVeryNode(join.right(), join.left()), plan.toString());
      }
    }
  }

  /** The lines of {@code parts} joined to the per-key aggregate of the lines reduced to those lines, built apart. */
  private static LogicalRel repeated(Tables t, LogicalRel parts) {
    LogicalRel chosenLines = new LogicalRel.Join(JoinKind.SEMI, t.lines(), parts, List.of("lk"), List.of("pk"));
    LogicalRel again = new LogicalRel.Join(JoinKind.SEMI, t.lines(), parts, List.of("lk"), List.of("pk"));
    LogicalRel aggregate = t.subquery(new LogicalRel.Join(JoinKind.SEMI, t.linesCopy(), again, List.of("lk2"),
        List.of("lk")));
    return new LogicalRel.Join(JoinKind.INNER, chosenLines, aggregate, List.of("lk"), List.of("lk2"));
  }

  private static boolean readsTheVeryNode(LogicalRel rel, LogicalRel node) {
    return holds(rel, inner -> inner == node);
  }

  /** Whether {@code rel} or a node below it (through joins, projects, aggregations and filters) passes {@code test}. */
  private static boolean holds(LogicalRel rel, Predicate<LogicalRel> test) {
    return test.test(rel) || switch (rel) {
      case LogicalRel.Join join -> holds(join.left(), test) || holds(join.right(), test);
      case LogicalRel.Project project -> holds(project.input(), test);
      case LogicalRel.Aggregation a -> holds(a.input(), test);
      case LogicalRel.Filter filter -> holds(filter.input(), test);
      default -> false;
    };
  }

  @Property(tries = 100)
  void aBuildSideReducedToTheProbeSidesKeysGivesTheSameRows(
      @ForAll @Size(max = 30) List<@IntRange(min = 0, max = 30) Integer> lines,
      @ForAll @Size(max = 8) List<@IntRange(min = 0, max = 12) Integer> parts, @ForAll boolean partsFirst,
      EngineMemory memory) {
    try (Tables t = Tables.of(memory, lines, parts)) {
      LogicalRel probe = partsFirst
          ? new LogicalRel.Join(JoinKind.INNER, t.chosenParts(), t.lines(), List.of("pk"), List.of("lk"))
          : new LogicalRel.Join(JoinKind.INNER, t.lines(), t.chosenParts(), List.of("lk"), List.of("pk"));
      LogicalRel build = new LogicalRel.Filter(t.linesCopy(), col("v2").gt(Expr.lit(2L)));
      LogicalRel plan = new LogicalRel.Join(JoinKind.INNER, new LogicalRel.Filter(probe, col("v").lt(Expr.lit(9L))),
          build, List.of("lk"), List.of("lk2"));
      LogicalRel rewritten = BuildSideReduction.rewrite(plan, ESTIMATES);
      assertNotEquals(plan, rewritten);
      assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, rewritten));
    }
  }

  @Example
  void aBuildSideIsNotReducedByAWholeTableOrAnOptionalSide(EngineMemory memory) {
    try (Tables t = Tables.of(memory, List.of(1, 2), List.of(1))) {
      List<LogicalRel> probes = List.of(
          new LogicalRel.Join(JoinKind.INNER, t.lines(), t.parts(), List.of("lk"), List.of("pk")),
          new LogicalRel.Join(JoinKind.LEFT_OUTER, t.chosenParts(), t.lines(), List.of("pk"), List.of("lk")));
      for (LogicalRel probe : probes) {
        String key = probe.columns().contains("lk") ? "lk" : "pk";
        LogicalRel plan = new LogicalRel.Join(JoinKind.INNER, probe, t.linesCopy(), List.of(key), List.of("lk2"));
        assertEquals(plan, BuildSideReduction.rewrite(plan, ESTIMATES), plan.toString());
      }
    }
  }

  @Example
  void otherRowsOtherPairsAndAnUnreducedInputAreLeftAlone(EngineMemory memory) {
    try (Tables t = Tables.of(memory, List.of(1, 2), List.of(1))) {
      LogicalRel chosen = t.chosenParts();
      LogicalRel otherParts = new LogicalRel.Filter(t.parts(), col("flag").eq(Expr.lit(2L)));
      List<LogicalRel> kept = List.of(
          shape(t, chosen, otherParts, "lk2", "pk", "lk"), // the aggregate reads other parts' lines
          shape(t, chosen, chosen, "v2", "pk", "lk"), // the semi join pairs another column
          shape(t, t.parts(), t.parts(), "lk2", "pk", "lk")); // every line is kept: reading twice is cheaper
      for (LogicalRel plan : kept) {
        assertEquals(plan, SharedAggregateInput.rewrite(plan, ESTIMATES, ids()), plan.toString());
      }
      LogicalRel pairedToTheFlag = new LogicalRel.Join(JoinKind.INNER,
          new LogicalRel.Join(JoinKind.INNER, t.lines(), chosen, List.of("lk"), List.of("pk")),
          t.subquery(new LogicalRel.Join(JoinKind.SEMI, t.linesCopy(), chosen, List.of("lk2"), List.of("pk"))),
          List.of("flag"), List.of("lk2"));
      assertEquals(pairedToTheFlag, SharedAggregateInput.rewrite(pairedToTheFlag, ESTIMATES, ids()),
          "the aggregate is joined to a column of the parts no line's column equals");
    }
  }

  @Example
  void aBudgetTooSmallForTheSharedRowsFailsByNameAndLeaksNothing(EngineMemory memory) {
    List<Integer> lines = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      lines.add(i % 13);
    }
    try (Tables t = Tables.of(memory, lines, List.of(1, 2, 3, 4))) {
      LogicalRel plan = SharedAggregateInput.rewrite(shape(t, t.chosenParts(), t.chosenParts(), "lk2", "pk", "lk"),
          ESTIMATES, ids());
      try (EngineMemory small = EngineMemory.create(MemoryBudget.of("small", 64 * 1024), 0)) {
        BudgetExceededException e = assertThrows(BudgetExceededException.class,
            () -> LogicalRuns.sortedRows(small, plan));
        assertTrue(e.getMessage().contains("small"), e.getMessage());
        assertEquals(0, small.arrow().getAllocatedMemory(), "the shared rows and the build side are freed");
      }
    }
  }

  /** Lines joined to {@code parts} on {@code lk = pk} and to the aggregate over lines' semi join with {@code semiParts}. */
  private static LogicalRel shape(Tables t, LogicalRel parts, LogicalRel semiParts, String semiKey, String partKey,
      String aggregateKey) {
    LogicalRel subquery = t.subquery(new LogicalRel.Join(JoinKind.SEMI, t.linesCopy(), semiParts, List.of(semiKey),
        List.of(partKey)));
    return new LogicalRel.Join(JoinKind.INNER, new LogicalRel.Join(JoinKind.INNER, t.lines(), parts, List.of("lk"),
        List.of(partKey)), subquery, List.of(aggregateKey), List.of("lk2"));
  }

  /** The two tables; a line's key is its draw (every seventh null), its value follows from its position. */
  private record Tables(Table lineTable, Table partTable) implements AutoCloseable {
    static Tables of(EngineMemory memory, List<Integer> lines, List<Integer> parts) {
      List<Object[]> lineRows = new ArrayList<>();
      for (int i = 0; i < lines.size(); i++) {
        int draw = lines.get(i);
        lineRows.add(new Object[] {draw % 7 == 6 ? null : (long) draw % 9, i % 5 == 4 ? null : (long) (i * 7 % 11)});
      }
      List<Object[]> partRows = new ArrayList<>();
      for (int i = 0; i < parts.size(); i++) {
        long key = parts.get(i) % 9;
        partRows.add(new Object[] {parts.get(i) == 12 ? null : key, key % 3 == 2 ? 2L : 1L});
      }
      Table lineTable = Fixture.build(List.of("lk", "v"), List.of(ColumnType.INT64, ColumnType.INT64), lineRows,
          memory);
      Table partTable = Fixture.build(List.of("pk", "flag"), List.of(ColumnType.INT64, ColumnType.INT64), partRows,
          memory);
      return new Tables(lineTable, partTable);
    }

    LogicalRel lines() {
      return new LogicalRel.Scan("lines", lineTable, List.of("lk", "v"), List.of("lk", "v"));
    }

    /** Lines read a second time, under the names {@code lk2} and {@code v2}. */
    LogicalRel linesCopy() {
      return new LogicalRel.Scan("lines", lineTable, List.of("lk", "v"), List.of("lk2", "v2"));
    }

    LogicalRel parts() {
      return new LogicalRel.Scan("parts", partTable, List.of("pk", "flag"), List.of("pk", "flag"));
    }

    LogicalRel chosenParts() {
      return new LogicalRel.Filter(parts(), col("flag").eq(Expr.lit(1L)));
    }

    /** The per-key sum and count of {@code semi}'s lines, as Q17's subquery: {@code lk2, s, n}. */
    LogicalRel subquery(LogicalRel semi) {
      LogicalRel projected = new LogicalRel.Project(semi, List.of(col("lk2").as("lk2"), col("v2").as("v2")));
      LogicalRel aggregated = new LogicalRel.Aggregation(projected, List.of(col("lk2").as("lk2")),
          List.of(Aggregate.sum(col("v2"), "s0"), Aggregate.countStar("n")));
      return new LogicalRel.Project(aggregated, List.of(col("lk2").as("lk2"), col("s0").add(Expr.lit(1L)).as("s"),
          col("n").as("n")));
    }

    @Override
    public void close() {
      Closing.closeAll(List.of(lineTable, partTable));
    }
  }
}
