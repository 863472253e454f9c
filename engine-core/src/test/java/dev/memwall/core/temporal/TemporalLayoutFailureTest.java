package dev.memwall.core.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every way to misuse a temporal layout ends in a named exception that changes nothing, and every charge is given back. */
@ExtendWith(LeakCheck.class)
class TemporalLayoutFailureTest {

  @ParameterizedTest
  @EnumSource(LayoutKind.class)
  void anEqualOrEarlierTimeIsRefusedByNameAndRecordsNothing(LayoutKind kind, EngineMemory memory) {
    try (TemporalLayout layout = TemporalLayout.create(kind, memory, 2)) {
      layout.append(7, 10, 1, 2);
      layout.append(8, 3, 5, 5); // another entity may be earlier
      TemporalOrderException equal = assertThrows(TemporalOrderException.class, () -> layout.append(7, 10, 9, 9));
      assertEquals(7, equal.surrogate());
      assertEquals(10, equal.lastTime());
      assertEquals(10, equal.time());
      assertThrows(TemporalOrderException.class, () -> layout.append(7, 9, 9, 9));
      assertThrows(TemporalOrderException.class, () -> layout.append(7, Long.MIN_VALUE, 9, 9));
      assertEquals(List.of(new Version(10, new long[] {1, 2})), layout.history(7));
    }
  }

  @ParameterizedTest
  @EnumSource(LayoutKind.class)
  void anUnchangedStateRecordsNoVersionButMovesTheClock(LayoutKind kind, EngineMemory memory) {
    try (TemporalLayout layout = TemporalLayout.create(kind, memory, 2)) {
      layout.append(1, 0, 4, 4);
      layout.append(1, 5, 4, 4);
      assertEquals(List.of(new Version(0, new long[] {4, 4})), layout.history(1));
      assertThrows(TemporalOrderException.class, () -> layout.append(1, 3, 4, 5));
      layout.append(1, 6, 4, 5);
      assertEquals(List.of(new ValidValue(4, 0, 6), new ValidValue(5, 6, ValidValue.OPEN)), layout.attributeHistory(1, 1));
    }
  }

  @ParameterizedTest
  @EnumSource(LayoutKind.class)
  void badArgumentsAreRefusedByName(LayoutKind kind, EngineMemory memory) {
    assertThrows(IllegalArgumentException.class, () -> TemporalLayout.create(kind, memory, 0));
    try (TemporalLayout layout = TemporalLayout.create(kind, memory, 3)) {
      assertThrows(IllegalArgumentException.class, () -> layout.append(1, 0, 1, 2));
      assertThrows(IllegalArgumentException.class, () -> layout.append(1, 0, 1, 2, 3, 4));
      IllegalArgumentException end = assertThrows(IllegalArgumentException.class,
          () -> layout.append(1, Long.MAX_VALUE, 1, 2, 3));
      assertTrue(end.getMessage().contains("open end"), end.getMessage());
      assertEquals(0, layout.entities());
      layout.append(1, Long.MAX_VALUE - 1, 1, 2, 3);
      assertThrows(IndexOutOfBoundsException.class, () -> layout.attributeHistory(1, 3));
      assertThrows(IndexOutOfBoundsException.class, () -> layout.attributeHistory(1, -1));
      assertEquals(List.of(), layout.history(2));
      assertEquals(List.of(), layout.attributeHistory(2, 0));
      assertEquals(0, layout.snapshot(Long.MAX_VALUE - 2).size(), "nothing is alive before its first version");
      assertEquals(1, layout.snapshot(Long.MAX_VALUE).size());
    }
  }

  @ParameterizedTest
  @EnumSource(LayoutKind.class)
  void aClosedLayoutRefusesEverythingAndGivesItsHeapBack(LayoutKind kind, EngineMemory memory) {
    TemporalLayout layout = TemporalLayout.create(kind, memory, 2);
    layout.append(1, 0, 1, 2);
    assertTrue(memory.allocatedBytes() > 0);
    assertEquals(memory.allocatedBytes(), layout.chargedBytes());
    layout.close();
    layout.close();
    assertEquals(0, memory.allocatedBytes());
    assertThrows(IllegalStateException.class, () -> layout.append(1, 1, 1, 3));
    assertThrows(IllegalStateException.class, () -> layout.history(1));
    assertThrows(IllegalStateException.class, () -> layout.snapshot(0));
    assertThrows(IllegalStateException.class, () -> layout.attributeHistory(1, 0));
  }

  @ParameterizedTest
  @EnumSource(LayoutKind.class)
  void aBudgetRefusalNamesTheLayoutAndKeepsWhatWasStored(LayoutKind kind) {
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("small", 4096))) {
      try (TemporalLayout layout = TemporalLayout.create(kind, memory, 4)) {
        long time = 0;
        BudgetExceededException refused = null;
        int surrogate = 0;
        while (refused == null) {
          try {
            layout.append(surrogate % 3, time, surrogate, time, 7, surrogate % 2);
            surrogate++;
            time++;
          } catch (BudgetExceededException e) {
            refused = e;
          }
        }
        assertEquals(TemporalLayout.OPERATOR, refused.operator());
        assertEquals(memory.allocatedBytes(), layout.chargedBytes());
        ReferenceTable reference = new ReferenceTable(4);
        for (int i = 0; i < surrogate; i++) {
          reference.append(i % 3, i, new long[] {i, i, 7, i % 2});
        }
        for (long s = 0; s < 3; s++) {
          assertEquals(reference.history(s), layout.history(s), "the refused append left no trace");
        }
        assertTrue(surrogate > 3, "the budget held several versions before refusing");
      }
      assertEquals(0, memory.allocatedBytes());
    }
  }
}
