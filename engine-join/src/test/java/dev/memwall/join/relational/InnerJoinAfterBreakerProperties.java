package dev.memwall.join.relational;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * An inner join whose left input ends in an aggregation (a pipeline breaker) and whose right input
 * streams: hashed on the left result when that turns out to have fewer rows than the right input
 * can have, on the right input otherwise, with the same pairs either way against nested loops
 * (null keys, duplicates, skew, empty inputs, keys at the type's limits, filtered right inputs, one
 * and two threads).
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class InnerJoinAfterBreakerProperties {
  @Provide
  Arbitrary<Integer> sizes() {
    return Arbitraries.oneOf(Arbitraries.of(0, 1), Arbitraries.integers().between(0, 150));
  }

  @Property(tries = 120)
  void theJoinOfAnAggregateHasTheNestedLoopsPairsWhicheverSideIsHashed(@ForAll("sizes") int leftRows,
      @ForAll("sizes") int rightRows, @ForAll @IntRange(min = 1, max = 40) int domain, @ForAll boolean limits,
      @ForAll boolean composite, @ForAll boolean filtered, @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 2) int threads, EngineMemory memory) {
    Random random = new Random(seed);
    List<List<Object>> left = RelationTestData.randomRows(random, leftRows, domain, limits, random.nextInt(3) * 0.15);
    List<List<Object>> right = RelationTestData.randomRows(random, rightRows, domain, limits, random.nextInt(3) * 0.15);
    // the left input grouped by (la, lb): the sum of lv per group, null keys a group of their own
    Map<List<Object>, Long> groups = new LinkedHashMap<>();
    for (List<Object> row : left) {
      groups.merge(Arrays.asList(row.get(0), row.get(1)), (Long) row.get(2), Long::sum);
    }
    List<List<Object>> expected = new ArrayList<>();
    groups.forEach((key, total) -> {
      for (List<Object> r : right) {
        boolean kept = !filtered || (Long) r.get(2) < 50;
        boolean a = key.get(0) != null && Objects.equals(key.get(0), r.get(0));
        boolean matches = composite ? a && key.get(1) != null && Objects.equals(key.get(1), r.get(1)) : a;
        if (kept && matches) {
          expected.add(Arrays.asList(key.get(0), total, r.get(3), r.get(2)));
        }
      }
    });

    ExecutionContext context = new ExecutionContext(memory, threads);
    try (Table l = RelationTestData.table(memory, RelationTestData.LEFT_NAMES, RelationTestData.TYPES, left);
        Table r = RelationTestData.table(memory, RelationTestData.RIGHT_NAMES, RelationTestData.TYPES, right)) {
      Relation grouped = Relation.scan(l, context)
          .aggregate(List.of(col("la").as("la"), col("lb").as("lb")), Aggregate.sum(col("lv"), "total"));
      Relation probe = filtered ? Relation.scan(r, context).filter(col("rw").lt(lit(50L))) : Relation.scan(r, context);
      Relation.JoinSpec spec = grouped.join(probe);
      spec = composite ? spec.on(List.of("la", "lb"), List.of("ra", "rb")) : spec.on("la", "ra");
      try (Relation joined = spec.keep("la", "total", "rs", "rw")) {
        boolean hashedLeft = joined.explain().contains("= build side's la");
        assertEquals(groups.size() < rightRows, hashedLeft, joined.explain());
        try (Table actual = joined.toTable()) {
          assertEquals(RelationTestData.rows(expected), RelationTestData.rows(actual));
        }
      }
    }
  }

  @Example
  void aLeftInputThatStreamsIsNeverHashedByAnInnerJoin(EngineMemory memory) {
    ExecutionContext context = new ExecutionContext(memory, 1);
    List<List<Object>> few = RelationTestData.randomRows(new Random(1), 3, 5, false, 0);
    List<List<Object>> many = RelationTestData.randomRows(new Random(2), 50, 5, false, 0);
    try (Table l = RelationTestData.table(memory, RelationTestData.LEFT_NAMES, RelationTestData.TYPES, few);
        Table r = RelationTestData.table(memory, RelationTestData.RIGHT_NAMES, RelationTestData.TYPES, many);
        Relation joined = Relation.scan(l, context).join(Relation.scan(r, context)).on("la", "ra").keep("ls", "rs")) {
      assertTrue(joined.explain().contains("la = build side's ra"), joined.explain());
    }
  }
}
