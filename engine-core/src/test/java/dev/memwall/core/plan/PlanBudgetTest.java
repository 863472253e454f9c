package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Plans charge their memory to the context's budget and free everything when they fail. */
@ExtendWith(LeakCheck.class)
class PlanBudgetTest {

  @Test
  void aTooSmallBudgetFailsCleanlyNamingTheBudget(EngineMemory data) {
    try (Table table = keys(data, 200_000)) {
      Plan plan = Plan.scan(table)
          .aggregate(List.of(col("k").as("k")), Aggregate.sum(col("k"), "total"), Aggregate.countStar("rows"));
      for (int threads = 1; threads <= 2; threads++) {
        EngineMemory small = EngineMemory.create(MemoryBudget.of("tiny query", 256 * 1024));
        int workers = threads;
        var e = assertThrows(BudgetExceededException.class, () -> plan.execute(new ExecutionContext(small, workers)).close());
        assertTrue(e.getMessage().contains("tiny query"), e.getMessage());
        assertEquals(0, small.allocatedBytes(), "a failed plan must free what it allocated");
        assertEquals(small.recycledBytes(), small.budget().reservedBytes(), "only recycled memory stays charged");
        small.close();
        assertEquals(0, small.budget().reservedBytes());
      }
    }
  }

  @Test
  void resultsAreChargedToTheBudgetUntilClosed(EngineMemory data) {
    try (Table table = keys(data, 10_000);
        EngineMemory memory = EngineMemory.create(MemoryBudget.of("query", 64L << 20))) {
      try (Table result = Plan.scan(table).filter(col("k").lt(lit(100)))
          .aggregate(List.of(col("k").as("k")), Aggregate.countStar("rows"))
          .execute(new ExecutionContext(memory, 2))) {
        assertEquals(100, result.rowCount());
        assertTrue(memory.budget().reservedBytes() > 0);
        assertTrue(memory.budget().peakBytes() >= memory.budget().reservedBytes());
      }
      assertEquals(0, memory.allocatedBytes());
      assertEquals(memory.recycledBytes(), memory.budget().reservedBytes(), "only recycled memory stays charged");
      memory.close();
      assertEquals(0, memory.budget().reservedBytes());
    }
  }

  private static Table keys(EngineMemory memory, int rows) {
    try (TableBuilder builder = new TableBuilder(List.of("k"), List.of(ColumnType.INT64), memory.arrow())) {
      for (int i = 0; i < rows; i++) {
        builder.appendLong(i % 100_003).endRow();
      }
      return builder.build();
    }
  }
}
