package dev.memwall.substrait;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.optimizer.EagerCount;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link EagerCount} against the plan it rewrites, both run: a preserved table {@code (k, v)} and an
 * optional one {@code (ok, x)}, their keys skewed, repeated and null, {@code x} null in places, the
 * optional side possibly empty; per preserved key (and per {@code v} too), the counts of {@code x}.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class EagerCountProperties {
  @Property(tries = 100)
  void countingBeforeTheJoinGivesTheSameGroupsAndCounts(@ForAll("keys") @Size(max = 30) List<Long> preserved,
      @ForAll("keys") @Size(max = 60) List<Long> optional, @ForAll boolean groupByValueToo, EngineMemory memory) {
    try (Table left = table(memory, "k", "v", preserved); Table right = table(memory, "ok", "x", optional)) {
      List<NamedExpr> keys = new ArrayList<>(List.of(col("k").as("k")));
      if (groupByValueToo) {
        keys.add(col("v").as("v"));
      }
      LogicalRel plan = new LogicalRel.Aggregation(new LogicalRel.Project(join(left, right),
          List.of(col("k").as("k"), col("v").as("v"), col("x").as("x"))), keys,
          List.of(Aggregate.count(col("x"), "c"), Aggregate.count(col("x"), "c2")));
      LogicalRel rewritten = EagerCount.rewrite(plan);
      assertNotEquals(plan, rewritten);
      assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, rewritten));
    }
  }

  @Example
  void countStarMeasuresOfThePreservedSideAndGroupsWithoutTheJoinKeyAreLeftAlone(EngineMemory memory) {
    try (Table left = table(memory, "k", "v", List.of(1L)); Table right = table(memory, "ok", "x", List.of(1L))) {
      List<LogicalRel> kept = List.of(
          new LogicalRel.Aggregation(join(left, right), List.of(col("k").as("k")), List.of(Aggregate.countStar("c"))),
          new LogicalRel.Aggregation(join(left, right), List.of(col("k").as("k")), List.of(Aggregate.count(col("v"), "c"))),
          new LogicalRel.Aggregation(join(left, right), List.of(col("v").as("v")), List.of(Aggregate.count(col("x"), "c"))),
          new LogicalRel.Aggregation(join(left, right), List.of(col("k").as("k")), List.of(Aggregate.sum(col("x"), "c"))),
          new LogicalRel.Aggregation(join(left, right), List.of(col("x").as("x")), List.of(Aggregate.count(col("x"), "c"))),
          new LogicalRel.Aggregation(new LogicalRel.Join(JoinKind.INNER, scan(left), scan(right), List.of("k"),
              List.of("ok")), List.of(col("k").as("k")), List.of(Aggregate.count(col("x"), "c"))));
      for (LogicalRel plan : kept) {
        assertEquals(plan, EagerCount.rewrite(plan), plan.toString());
      }
    }
  }

  private static LogicalRel join(Table left, Table right) {
    return new LogicalRel.Join(JoinKind.LEFT_OUTER, scan(left), scan(right), List.of("k"), List.of("ok"));
  }

  private static LogicalRel scan(Table table) {
    List<String> columns = table.schema().getFields().stream().map(field -> field.getName()).toList();
    return new LogicalRel.Scan(columns.getFirst(), table, columns, columns);
  }

  private static Table table(EngineMemory memory, String key, String value, List<Long> keys) {
    return KeyValueTables.of(memory, key, value, keys);
  }

  @Provide
  Arbitrary<List<Long>> keys() {
    return KeyValueTables.keys();
  }
}
