package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.decimal;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.BatchStream;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** EXPLAIN describes pipelines and operators without reading a row or allocating a byte. */
@ExtendWith(LeakCheck.class)
class PlanExplainTest {

  private static Table lines(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("flag", "qty", "price", "day"),
        List.of(ColumnType.STRING, ColumnType.INT64, ColumnType.decimal(2), ColumnType.DATE), memory.arrow())) {
      for (int i = 0; i < 1000; i++) {
        builder.appendString(("f" + i % 3).getBytes(java.nio.charset.StandardCharsets.UTF_8)).appendLong(i % 50)
            .appendLong(i * 7L).appendLong(9000 + i % 400).endRow();
      }
      return builder.build();
    }
  }

  @Test
  void describesEveryPipelineWithoutRunning(EngineMemory memory) {
    try (Table table = lines(memory)) {
      long before = memory.allocatedBytes();
      Plan plan = Plan.scan(table)
          .filter(and(col("day").ge(date("1995-01-01")), col("price").gt(decimal("1.50"))))
          .project(col("flag").as("flag"), col("price").mul(col("qty")).as("value"))
          .aggregate(List.of(col("flag").as("flag")), Aggregate.sum(col("value"), "total"), Aggregate.countStar("n"))
          .orderBy(SortKey.desc("total"), SortKey.asc("flag").withNullsFirst()).limit(2);
      String text = plan.explain();
      assertEquals(before, memory.allocatedBytes(), "explain allocated memory");
      List<String> lines = text.lines().toList();
      assertEquals("pipeline 1: scan table of 1000 rows in 1 batches [flag, qty, price, day]", lines.get(0));
      assertEquals("  filter day >= DATE '1995-01-01' AND price > 1.50", lines.get(1));
      assertEquals("  project [flag, (price * qty) AS value]", lines.get(2));
      assertEquals("  -> hash aggregation by [flag] computing [SUM(value) AS total, COUNT(*) AS n]", lines.get(3));
      assertEquals("pipeline 2: scan the result of pipeline 1", lines.get(4));
      assertEquals("  -> top 2 by total DESC, flag ASC NULLS FIRST (bounded heap)", lines.get(5));
      assertTrue(lines.get(6).startsWith("result: [flag Utf8, total Int(64, true), n Int(64, true)], at most 2 rows"),
          lines.get(6));
    }
  }

  @Test
  void explainingAStreamReadsNothingAndABadPlanIsRefusedAsExecuteWould(EngineMemory memory) {
    try (Table table = lines(memory)) {
      Iterator<VectorSchemaRoot> none = java.util.Collections.emptyIterator();
      try (BatchStream stream = BatchStream.of(table.schema(), none, null)) {
        Plan plan = Plan.scan(stream).filter(col("qty").lt(lit(3)));
        assertTrue(plan.explain().startsWith("pipeline 1: scan stream [flag, qty, price, day] (read once"),
            plan.explain());
        plan.execute(new ExecutionContext(memory, 1)).close(); // the stream is still unread
      }
      Plan bad = Plan.scan(table).aggregate(List.of(), Aggregate.sum(col("flag"), "s"));
      assertThrows(IllegalArgumentException.class, bad::explain);
    }
  }
}
