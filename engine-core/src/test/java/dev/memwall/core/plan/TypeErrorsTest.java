package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.timestamp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.vector.BatchStream;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a plan says, in one line and leaking nothing, when its input holds a column memwall does not
 * read (a streamed scan's, as a borrowed table's and a file's: only a plan that names it fails), a
 * date64 value that is not a whole day, or types that do not go together (a wall-clock timestamp
 * against an instant, a date against a timestamp, a boolean in arithmetic, a number as a predicate,
 * SUM of booleans).
 */
@ExtendWith(LeakCheck.class)
class TypeErrorsTest {

  @Test
  void aStreamedScanLeavesUnreadableColumnsOutAndRefusesThemByName(EngineMemory memory) {
    try (Table sum = Plan.scan(stream(memory)).aggregate(List.of(), Aggregate.sum(col("id"), "total"))
        .execute(new ExecutionContext(memory, 2))) {
      assertEquals(2999L * 3000 / 2, sum.batches().getFirst().column("total").getObject(0));
    }
    try (BatchStream stream = stream(memory)) {
      Plan plan = Plan.scan(stream).filter(col("odd").gt(lit(1)));
      var e = assertThrows(IllegalArgumentException.class, () -> plan.execute(new ExecutionContext(memory, 2)).close());
      assertOneLine(e, "'odd'", "Time(MICROSECOND, 64)", "Plan.scan left the column out");
    }
    assertEquals(0, memory.allocatedBytes(), "every batch of both streams is closed");
  }

  /** Three batches of 1000 rows: id (int64, 0..2999) and odd (time64[us]). */
  private static BatchStream stream(EngineMemory memory) {
    List<VectorSchemaRoot> batches = new ArrayList<>();
    for (int b = 0; b < 3; b++) {
      BigIntVector id = new BigIntVector("id", memory.arrow());
      TimeMicroVector odd = new TimeMicroVector("odd", memory.arrow());
      VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(id, odd));
      root.allocateNew();
      for (int i = 0; i < 1000; i++) {
        id.setSafe(i, b * 1000L + i);
        odd.setSafe(i, i);
      }
      root.setRowCount(1000);
      batches.add(root);
    }
    Schema schema = batches.getFirst().getSchema();
    var iterator = batches.iterator();
    return new BatchStream() {
      private final BatchStream inner = BatchStream.of(schema, iterator, null);

      @Override
      public Schema schema() {
        return schema;
      }

      @Override
      public org.apache.arrow.vector.dictionary.DictionaryProvider dictionaries() {
        return null;
      }

      @Override
      public VectorSchemaRoot next() {
        return inner.next();
      }

      @Override
      public void close() {
        iterator.forEachRemaining(VectorSchemaRoot::close); // batches a failed plan never read
      }
    };
  }

  @Test
  void date64ValuesThatAreNotWholeDaysFailOnlyTheQueriesThatReadThem(EngineMemory memory) {
    try (BigIntVector id = new BigIntVector("id", memory.arrow());
        DateMilliVector day = new DateMilliVector("day", memory.arrow());
        VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(id, day))) {
      root.allocateNew();
      id.setSafe(0, 1);
      day.setSafe(0, -86_400_000L);
      id.setSafe(1, 2);
      day.setNull(1);
      id.setSafe(2, 3);
      day.setSafe(2, 86_400_000L + 1);
      root.setRowCount(3);
      try (Table table = Table.borrow(root.getSchema(), List.of(root), null)) {
        try (Table ids = Plan.scan(table).aggregate(List.of(), Aggregate.sum(col("id"), "s"))
            .execute(new ExecutionContext(memory, 1))) {
          assertEquals(6L, ids.batches().getFirst().column("s").getObject(0));
        }
        Plan plan = Plan.scan(table).filter(col("day").lt(date("1970-01-01")));
        var e = assertThrows(ArithmeticException.class, () -> plan.execute(new ExecutionContext(memory, 1)).close());
        assertOneLine(e, "'day'", "date64", "row 2", "86400001 ms");
      }
    }
  }

  @Test
  void typesThatDoNotGoTogetherAreRefusedBeforeAnythingRuns(EngineMemory memory) {
    Schema schema = new Schema(List.of(ColumnType.timestamp(TimeUnit.MICROSECOND, null).toField("wall", true, null),
        ColumnType.timestamp(TimeUnit.MILLISECOND, "UTC").toField("instant", true, null),
        ColumnType.DATE.toField("day", true, null), ColumnType.BOOLEAN.toField("flag", true, null),
        ColumnType.INT32.toField("n", true, null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow());
        Table table = Table.borrow(schema, List.of(root), null)) {
      root.setRowCount(0);
      List<Function<Plan, Plan>> refused = List.of(
          p -> p.filter(col("wall").lt(timestamp(Instant.EPOCH))),
          p -> p.filter(col("instant").lt(timestamp("1970-01-01T00:00:00"))),
          p -> p.filter(col("wall").lt(col("instant"))),
          p -> p.filter(col("day").lt(col("wall"))),
          p -> p.filter(col("flag").eq(lit(1))),
          p -> p.filter(col("n")),
          p -> p.project(col("flag").add(lit(1)).as("x")),
          p -> p.project(col("wall").sub(col("wall")).as("x")),
          p -> p.aggregate(List.of(), Aggregate.sum(col("flag"), "x")),
          p -> p.aggregate(List.of(), Aggregate.avg(col("instant"), "x")),
          p -> p.project(Expr.caseWhen(col("flag"), col("wall"), col("instant")).as("x")));
      for (Function<Plan, Plan> step : refused) {
        Plan plan = step.apply(Plan.scan(table));
        var e = assertThrows(IllegalArgumentException.class, plan::schema, plan.toString());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertEquals(e.getMessage(),
            assertThrows(IllegalArgumentException.class, () -> plan.execute(new ExecutionContext(memory, 1))).getMessage());
      }
      // and what does go together
      try (Table ok = Plan.scan(table).filter(col("instant").lt(timestamp(Instant.EPOCH)))
          .filter(col("wall").ge(timestamp("1969-07-20T20:17:40"))).filter(col("flag").eq(lit(true)))
          .execute(new ExecutionContext(memory, 1))) {
        assertEquals(0, ok.rowCount());
      }
    }
  }

  private static void assertOneLine(Exception e, String... parts) {
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
    for (String part : parts) {
      assertTrue(e.getMessage().contains(part), e.getMessage());
    }
  }
}
