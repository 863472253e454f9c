package dev.memwall.join.relational;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinKeyException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link Relation}'s contract beyond the results: ownership of intermediates and bad input. */
@ExtendWith(LeakCheck.class)
class RelationTest {
  private static final List<ColumnType> TYPES = List.of(ColumnType.INT32, ColumnType.STRING);

  private static Table table(EngineMemory memory, String key, String text, Object... keyTextPairs) {
    List<List<Object>> rows = new java.util.ArrayList<>();
    for (int i = 0; i < keyTextPairs.length; i += 2) {
      rows.add(Arrays.asList(keyTextPairs[i], keyTextPairs[i + 1]));
    }
    return RelationTestData.table(memory, List.of(key, text), TYPES, rows);
  }

  @Test
  void ownedInputsAndIntermediatesAreFreedAlongTheChain(EngineMemory memory) {
    ExecutionContext context = ExecutionContext.singleThreaded(memory);
    Relation left = Relation.own(table(memory, "k", "a", 1, "x", 2, "y", 2, "z", null, "n"), context);
    Relation right = Relation.own(table(memory, "j", "b", 2, "two", 3, "three"), context);
    try (Table result = left.leftOuterJoin(right).on("k", "j").keepAll()
        .orderBy(SortKey.asc("a")).toTable()) {
      assertEquals(List.of("[1, x, null, null]", "[2, y, 2, two]", "[2, z, 2, two]", "[null, n, null, null]"),
          RelationTestData.rows(result));
    }
    // LeakCheck fails the test if the owned inputs or the join result were not freed
  }

  @Test
  void frequentValuesCountTheJoinedRows(EngineMemory memory) {
    ExecutionContext context = new ExecutionContext(memory, 2);
    try (Table l = table(memory, "k", "a", 1, "x", 2, "y", 2, "z", 3, "w");
        Table r = table(memory, "j", "b", 2, "two", 2, "deux", 3, "three")) {
      // joined: k = 2 four times (y and z with two and deux), k = 3 once; fewer values than counters: exact
      try (Table top = Relation.scan(l, context).join(Relation.scan(r, context)).on("k", "j").keepAll()
          .approxTopK(col("k"), 2).toTable()) {
        assertEquals(List.of("[2, 4, 0, true]", "[3, 1, 0, true]"), RelationTestData.rows(top));
      }
      try (Table frequent = Relation.scan(l, context).join(Relation.scan(r, context)).on("k", "j").keepAll()
          .frequent(col("b"), 0.3).orderBy(SortKey.asc("b")).toTable()) {
        assertEquals(List.of("[deux, 2, 0, true]", "[two, 2, 0, true]"), RelationTestData.rows(frequent));
      }
      // per k: k = 2 joined y and z twice each (two and deux), k = 3 joined w once
      try (Table perKey = Relation.scan(l, context).join(Relation.scan(r, context)).on("k", "j").keepAll()
          .approxTopKPerGroup(col("k"), col("b"), 1, 4).toTable()) {
        List<String> rows = RelationTestData.rows(perKey);
        assertEquals(2, rows.size());
        assertTrue(rows.get(0).equals("[2, deux, 2, 0, true]") || rows.get(0).equals("[2, two, 2, 0, true]"),
            rows.toString());
        assertEquals("[3, three, 1, 0, true]", rows.get(1));
      }
    }
  }

  @Test
  void aFailingJoinFreesBothInputs(EngineMemory memory) {
    ExecutionContext context = ExecutionContext.singleThreaded(memory);
    Relation left = Relation.own(table(memory, "k", "a", 1, "x"), context).filter(col("k").gt(lit(0)));
    Relation right = Relation.own(table(memory, "j", "b", 1, "y"), context);
    assertThrows(JoinKeyException.class, () -> left.join(right).on("a", "j").keepAll()); // a string key
  }

  @Test
  void aNameOnBothSidesMustBeRenamedFirst(EngineMemory memory) {
    ExecutionContext context = ExecutionContext.singleThreaded(memory);
    try (Table l = table(memory, "k", "name", 1, "x");
        Table r = table(memory, "j", "name", 1, "y")) {
      var e = assertThrows(IllegalArgumentException.class,
          () -> Relation.scan(l, context).join(Relation.scan(r, context)).on("k", "j").keep("k", "name"));
      assertTrue(e.getMessage().contains("'name' is on both sides"), e.getMessage());
      try (Table renamed = Relation.scan(l, context)
          .join(Relation.scan(r, context).project(col("j").as("j"), col("name").as("other")))
          .on("k", "j").keep("name", "other").toTable()) {
        assertEquals(List.of("[x, y]"), RelationTestData.rows(renamed));
      }
      var unknown = assertThrows(IllegalArgumentException.class,
          () -> Relation.scan(l, context).semiJoin(Relation.scan(r, context)).on("k", "j").keep("j"));
      assertTrue(unknown.getMessage().contains("no column 'j'"), unknown.getMessage());
    }
  }

  @Test
  void consumedRelationsAndMissingKeysAreRejected(EngineMemory memory) {
    ExecutionContext context = ExecutionContext.singleThreaded(memory);
    try (Table l = table(memory, "k", "a", 1, "x")) {
      Relation relation = Relation.scan(l, context);
      Relation filtered = relation.filter(col("k").eq(lit(1)));
      assertThrows(IllegalStateException.class, () -> relation.filter(col("k").eq(lit(2))));
      assertThrows(IllegalArgumentException.class, () -> filtered.join(filtered));
      try (Relation other = Relation.scan(l, context)) {
        assertThrows(IllegalStateException.class, () -> filtered.join(other).keepAll());
      }
      assertThrows(IllegalArgumentException.class,
          () -> Relation.scan(l, context).join(Relation.scan(l, context)).on(List.of("k"), List.of()));
    }
  }

  /**
   * Semi and anti joins whose left input is the smaller: hashed and marked by the right input's rows,
   * whether the right input streams (a filtered scan) or has run first (an aggregation).
   */
  @Test
  void smallLeftInputsOfSemiAndAntiJoinsAreMarkedByTheRightInput(EngineMemory memory) {
    ExecutionContext context = new ExecutionContext(memory, 2);
    List<List<Object>> big = new java.util.ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      big.add(Arrays.asList(i % 1000, "r" + i));
    }
    try (Table l = table(memory, "k", "a", 5, "five", 1500, "none", null, "null key", 7, "seven", 5, "five again");
        Table r = RelationTestData.table(memory, List.of("j", "b"), TYPES, big)) {
      for (boolean aggregated : new boolean[] {false, true}) {
        Relation semiRight = Relation.scan(r, context).filter(col("j").ne(lit(7)));
        Relation antiRight = Relation.scan(r, context).filter(col("j").ne(lit(7)));
        if (aggregated) {
          semiRight = semiRight.aggregate(List.of(col("j").as("j")), dev.memwall.core.operator.Aggregate.countStar("n"));
          antiRight = antiRight.aggregate(List.of(col("j").as("j")), dev.memwall.core.operator.Aggregate.countStar("n"));
        }
        try (Table semi = Relation.scan(l, context).semiJoin(semiRight).on("k", "j").keep("a").toTable();
            Table anti = Relation.scan(l, context).antiJoin(antiRight).on("k", "j").keep("a", "k").toTable()) {
          assertEquals(List.of("[five again]", "[five]"), RelationTestData.rows(semi), "aggregated " + aggregated);
          assertEquals(List.of("[none, 1500]", "[null key, null]", "[seven, 7]"), RelationTestData.rows(anti),
              "aggregated " + aggregated);
        }
      }
    }
  }

  @Test
  void aNamedAlgorithmIsUsedAndBorrowedTablesAreCopiedOut(EngineMemory memory) {
    ExecutionContext context = new ExecutionContext(memory, 2);
    try (Table l = table(memory, "k", "a", 5, "x", 6, "y");
        Table r = table(memory, "j", "b", 6, "six");
        Table copy = Relation.scan(l, context).toTable();
        Table joined = Relation.scan(l, context).join(Relation.scan(r, context)).on("k", "j")
            .algorithm(JoinAlgorithm.PHASH).keep("a", "b").toTable()) {
      assertEquals(List.of("[5, x]", "[6, y]"), RelationTestData.rows(copy));
      assertEquals(List.of("[y, six]"), RelationTestData.rows(joined));
    }
  }

  @Test
  void joinResultsSpanSeveralOutputBatches(EngineMemory memory) {
    ExecutionContext context = new ExecutionContext(memory, 2);
    int rows = 3 * dev.memwall.core.vector.TableBuilder.BATCH_ROWS / 2 + 7;
    List<List<Object>> left = new java.util.ArrayList<>();
    List<List<Object>> right = new java.util.ArrayList<>();
    for (int i = 0; i < rows; i++) {
      left.add(Arrays.asList(i, i % 3 == 0 ? null : "l" + i));
      right.add(Arrays.asList(rows - 1 - i, "r" + (rows - 1 - i)));
    }
    try (Table l = RelationTestData.table(memory, List.of("k", "a"), TYPES, left);
        Table r = RelationTestData.table(memory, List.of("j", "b"), TYPES, right);
        Table joined = Relation.scan(l, context).join(Relation.scan(r, context)).on("k", "j")
            .keep("k", "a", "j", "b").toTable()) {
      assertTrue(joined.batches().size() > 1, "expected several batches");
      assertEquals(rows, joined.rowCount());
      for (var batch : joined.batches()) {
        for (int i = 0; i < batch.rowCount(); i++) {
          int k = (Integer) batch.column(0).getObject(i);
          assertEquals(k, batch.column(2).getObject(i));
          assertEquals(k % 3 == 0 ? null : "l" + k, batch.column(1).getObject(i));
          assertEquals("r" + k, batch.column(3).getObject(i));
        }
      }
    }
  }

  @Test
  void aSystemPropertyCanNameTheAlgorithmOfEveryJoin(EngineMemory memory) {
    ExecutionContext context = ExecutionContext.singleThreaded(memory);
    String property = Relation.JoinSpec.ALGORITHM_PROPERTY;
    try (Table l = table(memory, "k", "a", 1, "x", 2, "y");
        Table r = table(memory, "j", "b", 2, "two")) {
      System.setProperty(property, "radix_join");
      try (Table joined = Relation.scan(l, context).join(Relation.scan(r, context)).on("k", "j").keep("a", "b")
          .toTable()) {
        assertEquals(List.of("[y, two]"), RelationTestData.rows(joined));
      }
      System.setProperty(property, "no such join");
      var e = assertThrows(IllegalArgumentException.class,
          () -> Relation.scan(l, context).join(Relation.scan(r, context)));
      assertTrue(e.getMessage().contains(property), e.getMessage());
    } finally {
      System.clearProperty(property);
    }
  }
}
