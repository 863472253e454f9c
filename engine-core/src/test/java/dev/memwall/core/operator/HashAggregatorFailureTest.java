package dev.memwall.core.operator;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.vector.ColumnType;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A {@link HashAggregator} that cannot be built leaves nothing allocated. */
@ExtendWith(LeakCheck.class)
class HashAggregatorFailureTest {
  private static final Schema SCHEMA = new Schema(List.of(
      ColumnType.INT64.toField("k", true, null), ColumnType.STRING.toField("s", true, null)));

  @Test
  void unsupportedAggregatesAreRefusedBeforeAnythingIsAllocated() {
    EngineMemory memory = EngineMemory.create("sum of strings");
    var e = assertThrows(IllegalArgumentException.class, () -> new HashAggregator(memory, new Binder(SCHEMA),
        List.of(), List.of(Aggregate.sum(col("s"), "x")), new StringIds(), AggregateLayout.COLUMNS).close());
    assertTrue(e.getMessage().contains("SUM") && e.getMessage().contains("STRING"), e.getMessage());
    assertEquals(0, memory.allocatedBytes());
    assertDoesNotThrow(memory::close);
  }

  @Test
  void aBudgetRefusedPartWayThroughFreesWhatWasAllocated() {
    // many aggregates: the group table fits the budget, the accumulators' columns do not
    List<Aggregate> aggregates = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      aggregates.add(Aggregate.sum(col("k").mul(lit(i + 2)), "s" + i));
    }
    for (var layout : AggregateLayout.values()) {
      EngineMemory memory = EngineMemory.create(MemoryBudget.of("small", 64 * 1024), 0);
      assertThrows(BudgetExceededException.class, () -> new HashAggregator(memory, new Binder(SCHEMA),
          List.of(col("k").as("k")), aggregates, new StringIds(), layout).close());
      assertEquals(0, memory.allocatedBytes(), "a failed constructor frees what it allocated");
      assertDoesNotThrow(memory::close);
    }
  }
}
