package dev.memwall.join.relational;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.common.JoinType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link Relation} against nested loops over Java rows: filtered inputs joined by every join type
 * on one or two key columns (with null keys, duplicates, skew, empty and one-row inputs, keys at
 * the int32 and int64 limits), choosing output columns from both sides, on one and two threads;
 * and a three-way join chain ending in an aggregation, against a {@link TreeMap} reference.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class RelationProperties {
  @Provide
  Arbitrary<Integer> sizes() {
    return Arbitraries.oneOf(Arbitraries.of(0, 1), Arbitraries.integers().between(0, 120));
  }

  @Property(tries = 150)
  void joinsOfFilteredInputsMatchNestedLoops(@ForAll JoinType type, @ForAll boolean composite,
      @ForAll("sizes") int leftRows, @ForAll("sizes") int rightRows, @ForAll @IntRange(min = 1, max = 30) int domain,
      @ForAll boolean limits, @ForAll long seed, @ForAll @IntRange(min = 1, max = 2) int threads,
      @ForAll @IntRange(min = 0, max = 100) int cut, EngineMemory memory) {
    Random random = new Random(seed);
    double nulls = random.nextInt(3) * 0.15;
    List<List<Object>> left = RelationTestData.randomRows(random, leftRows, domain, limits, nulls);
    List<List<Object>> right = RelationTestData.randomRows(random, rightRows, domain, limits, nulls);
    boolean semiOrAnti = type == JoinType.SEMI || type == JoinType.ANTI;

    List<List<Object>> expected = new ArrayList<>();
    for (List<Object> l : left) {
      if ((Long) l.get(2) >= cut) {
        continue;
      }
      int matches = 0;
      for (List<Object> r : right) {
        if ((Long) r.get(2) < 100 - cut || !keysEqual(l, r, composite)) {
          continue;
        }
        matches++;
        if (!semiOrAnti) {
          expected.add(Arrays.asList(l.get(3), l.get(2), r.get(3), r.get(2)));
        }
      }
      if (matches == 0 && type.reportsUnmatched() || matches > 0 && type == JoinType.SEMI) {
        expected.add(semiOrAnti ? Arrays.asList(l.get(3), l.get(2)) : Arrays.asList(l.get(3), l.get(2), null, null));
      }
    }

    ExecutionContext context = new ExecutionContext(memory, threads);
    try (Table l = RelationTestData.table(memory, RelationTestData.LEFT_NAMES, RelationTestData.TYPES, left);
        Table r = RelationTestData.table(memory, RelationTestData.RIGHT_NAMES, RelationTestData.TYPES, right)) {
      Relation leftRelation = Relation.scan(l, context).filter(col("lv").lt(lit(cut)));
      Relation rightRelation = Relation.scan(r, context).filter(col("rw").ge(lit(100 - cut)));
      Relation.JoinSpec spec = switch (type) {
        case INNER -> leftRelation.join(rightRelation);
        case LEFT_OUTER -> leftRelation.leftOuterJoin(rightRelation);
        case SEMI -> leftRelation.semiJoin(rightRelation);
        case ANTI -> leftRelation.antiJoin(rightRelation);
      };
      spec = composite ? spec.on(List.of("la", "lb"), List.of("ra", "rb")) : spec.on("la", "ra");
      try (Relation joined = semiOrAnti ? spec.keep("ls", "lv") : spec.keep("ls", "lv", "rs", "rw");
          Table actual = joined.toTable()) {
        assertEquals(RelationTestData.rows(expected), RelationTestData.rows(actual), type + " composite " + composite);
      }
    }
  }

  private static boolean keysEqual(List<Object> l, List<Object> r, boolean composite) {
    boolean a = l.get(0) != null && Objects.equals(l.get(0), r.get(0));
    return composite ? a && l.get(1) != null && Objects.equals(l.get(1), r.get(1)) : a;
  }

  /**
   * (left join middle on a) join right on b, grouped by the left text: the sum of the right
   * values and the count of rows, like a star-schema query.
   */
  @Property(tries = 60)
  void joinChainsEndingInAnAggregationMatchTheReference(@ForAll("sizes") int leftRows, @ForAll("sizes") int middleRows,
      @ForAll("sizes") int rightRows, @ForAll @IntRange(min = 1, max = 20) int domain, @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 2) int threads, EngineMemory memory) {
    Random random = new Random(seed);
    List<List<Object>> left = RelationTestData.randomRows(random, leftRows, domain, false, 0.1);
    List<List<Object>> middle = RelationTestData.randomRows(random, middleRows, domain, false, 0.1);
    List<List<Object>> right = RelationTestData.randomRows(random, rightRows, domain, false, 0.1);
    Map<String, long[]> expected = new TreeMap<>();
    for (List<Object> l : left) {
      for (List<Object> m : middle) {
        if (l.get(0) == null || !l.get(0).equals(m.get(0))) {
          continue;
        }
        for (List<Object> r : right) {
          if (m.get(1) != null && m.get(1).equals(r.get(1))) {
            long[] group = expected.computeIfAbsent(String.valueOf(l.get(3)), k -> new long[2]);
            group[0] += (Long) r.get(2);
            group[1]++;
          }
        }
      }
    }
    List<List<Object>> expectedRows = new ArrayList<>();
    expected.forEach((k, v) -> expectedRows.add(Arrays.asList(k.equals("null") ? null : k, v[0], v[1])));

    ExecutionContext context = new ExecutionContext(memory, threads);
    List<String> middleNames = List.of("ma", "mb", "mv", "ms");
    try (Table l = RelationTestData.table(memory, RelationTestData.LEFT_NAMES, RelationTestData.TYPES, left);
        Table m = RelationTestData.table(memory, middleNames, RelationTestData.TYPES, middle);
        Table r = RelationTestData.table(memory, RelationTestData.RIGHT_NAMES, RelationTestData.TYPES, right);
        Table actual = Relation.scan(l, context)
            .join(Relation.scan(m, context)).on("la", "ma").keep("ls", "mb")
            .join(Relation.scan(r, context)).on("mb", "rb").keep("ls", "rw")
            .aggregate(List.of(col("ls").as("ls")), Aggregate.sum(col("rw"), "total"), Aggregate.countStar("rows"))
            .toTable()) {
      assertEquals(RelationTestData.rows(expectedRows), RelationTestData.rows(actual));
    }
  }
}
