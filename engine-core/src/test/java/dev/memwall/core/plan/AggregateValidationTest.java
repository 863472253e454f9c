package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Aggregations the engine cannot compute are refused, by {@link Plan#schema} and by
 * {@link Plan#execute} alike, with a one-line message naming the aggregate, its argument and the
 * argument's type, before anything is allocated.
 */
@ExtendWith(LeakCheck.class)
class AggregateValidationTest {

  @Test
  void sumOfStringsIsRefusedNamingTheAggregateAndLeaksNothing(EngineMemory data) {
    try (Table table = sample(data)) {
      Plan plan = Plan.scan(table).aggregate(List.of(), Aggregate.sum(col("s"), "x"));
      for (int threads = 1; threads <= 2; threads++) {
        EngineMemory memory = EngineMemory.create("sum of strings, " + threads + " threads");
        ExecutionContext context = new ExecutionContext(memory, threads);
        var e = assertThrows(IllegalArgumentException.class, () -> plan.execute(context).close());
        assertMentions(e, "SUM", "s", "STRING", "x");
        assertEquals(0, memory.allocatedBytes(), "a refused plan allocates nothing");
        assertDoesNotThrow(memory::close, "nothing may leak");
      }
      var e = assertThrows(IllegalArgumentException.class, plan::schema);
      assertMentions(e, "SUM", "s", "STRING", "x");
    }
  }

  @Test
  void otherUnsupportedAggregatesAndKeysAreRefusedBeforeExecution(EngineMemory data) {
    try (Table table = sample(data)) {
      List<Plan> plans = List.of(
          Plan.scan(table).aggregate(List.of(col("k").as("k")), Aggregate.avg(col("s"), "mean")),
          Plan.scan(table).aggregate(List.of(), Aggregate.min(col("s"), "least")),
          Plan.scan(table).aggregate(List.of(), Aggregate.sum(col("d"), "days")),
          Plan.scan(table).aggregate(List.of(Expr.substring(col("s"), 1, 1).as("p")), Aggregate.countStar("rows")),
          // a later pipeline: the aggregation over the first one's result
          Plan.scan(table).aggregate(List.of(col("s").as("s")), Aggregate.countStar("n"))
              .aggregate(List.of(), Aggregate.max(col("s"), "last")));
      List<List<String>> named = List.of(List.of("AVG", "s", "STRING", "mean"), List.of("MIN", "s", "STRING", "least"),
          List.of("SUM", "d", "DATE", "days"), List.of("p", "string grouping keys must be columns"),
          List.of("MAX", "s", "STRING", "last"));
      for (int p = 0; p < plans.size(); p++) {
        Plan plan = plans.get(p);
        EngineMemory memory = EngineMemory.create("refused plan " + p);
        var e = assertThrows(IllegalArgumentException.class, () -> plan.execute(new ExecutionContext(memory, 2)).close());
        assertMentions(e, named.get(p).toArray(String[]::new));
        assertEquals(0, memory.allocatedBytes(), plan + " allocated before failing");
        assertDoesNotThrow(memory::close);
        var s = assertThrows(IllegalArgumentException.class, plan::schema);
        assertEquals(e.getMessage(), s.getMessage(), "schema() and execute() refuse alike");
      }
    }
  }

  @Test
  void filtersThatDoNotFitTheirInputAreRefusedBySchemaAsByExecute(EngineMemory data) {
    try (Table table = sample(data)) {
      Plan plan = Plan.scan(table).filter(col("s").lt(lit(3))).aggregate(List.of(), Aggregate.countStar("n"));
      EngineMemory memory = EngineMemory.create("bad filter");
      var e = assertThrows(IllegalArgumentException.class, () -> plan.execute(new ExecutionContext(memory, 2)).close());
      assertEquals(e.getMessage(), assertThrows(IllegalArgumentException.class, plan::schema).getMessage());
      assertEquals(0, memory.allocatedBytes());
      assertDoesNotThrow(memory::close);
    }
  }

  @Test
  void countOfStringsAndStringKeysStillWork(EngineMemory memory) {
    try (Table table = sample(memory);
        Table result = Plan.scan(table)
            .aggregate(List.of(col("s").as("s")), Aggregate.count(col("s"), "n"), Aggregate.sum(col("k"), "total"))
            .execute(new ExecutionContext(memory, 2))) {
      assertEquals(3, result.rowCount());
    }
  }

  private static void assertMentions(IllegalArgumentException e, String... parts) {
    String message = e.getMessage();
    assertFalse(message.contains("\n"), "one line: " + message);
    for (String part : parts) {
      assertTrue(message.contains(part), "'" + part + "' missing from: " + message);
    }
  }

  /** Columns k INT64, s STRING, d DATE and f FLOAT64 over 1000 rows. */
  private static Table sample(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "s", "d", "f"),
        List.of(ColumnType.INT64, ColumnType.STRING, ColumnType.DATE, ColumnType.FLOAT64), memory.arrow())) {
      for (int i = 0; i < 1000; i++) {
        builder.appendLong(i).appendString(("v" + i % 3).getBytes(StandardCharsets.UTF_8)).appendLong(i)
            .appendDouble(i * 0.5).endRow();
      }
      return builder.build();
    }
  }
}
