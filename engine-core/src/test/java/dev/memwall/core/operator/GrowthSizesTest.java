package dev.memwall.core.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Growing arrays double for a step past their end, and take exactly what a reservation of many
 * slots asks for: rounded up to a power of two, a worker's reserved groups could take twice the
 * memory its budget check counted.
 */
@ExtendWith(LeakCheck.class)
class GrowthSizesTest {
  @Test
  void aLongArrayDoublesOrTakesTheReservation(EngineMemory memory) {
    try (OffHeapLongArray array = new OffHeapLongArray(memory, 1000)) {
      assertEquals(1000, array.capacity());
      array.ensureCapacity(1000);
      assertEquals(2000, array.capacity(), "one step past the end doubles");
      array.ensureCapacity(600_000);
      assertEquals(600_001, array.capacity(), "a reservation takes what it asks for");
    }
  }

  @Test
  void groupColumnsDoubleOrTakeTheReservation(EngineMemory memory) {
    try (GroupColumns columns = new GroupColumns(memory, 3, 1000, AggregateLayout.COLUMNS)) {
      GroupColumns.Column column = columns.claim();
      column.ensureCapacity(1000);
      assertEquals(3L * 2000 * Long.BYTES, columns.footprintBytes(), "one step past the end doubles");
      column.ensureCapacity(600_000);
      assertEquals(3L * 600_001 * Long.BYTES, columns.footprintBytes(), "a reservation takes what it asks for");
    }
  }
}
