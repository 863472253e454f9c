package dev.memwall.core.frequent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every way to misuse a summary ends in a named exception, and every charge is given back. */
@ExtendWith(LeakCheck.class)
class SpaceSavingFailureTest {

  @Test
  void aBudgetTooSmallForTheCountersRefusesThemByName() {
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("tiny", SpaceSaving.bytesFor(100) - 1))) {
      BudgetExceededException e = assertThrows(BudgetExceededException.class, () -> SpaceSaving.create(memory, 100));
      assertEquals(SpaceSaving.OPERATOR, e.operator());
      assertEquals(0, memory.allocatedBytes(), "nothing stays charged after a refusal");
      try (SpaceSaving fits = SpaceSaving.create(memory, 99)) {
        assertEquals(SpaceSaving.bytesFor(99), memory.allocatedBytes());
      }
      assertEquals(0, memory.allocatedBytes());
    }
  }

  @Test
  void monitoredStringsAreChargedAndRefusedByName() {
    long counters = SpaceSaving.bytesFor(4);
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("strings", counters + 100))) {
      try (StringSpaceSaving summary = StringSpaceSaving.create(memory, 4)) {
        summary.offer("x".repeat(60));
        assertEquals(counters + 60, memory.allocatedBytes());
        BudgetExceededException e = assertThrows(BudgetExceededException.class, () -> summary.offer("y".repeat(60)));
        assertEquals(SpaceSaving.OPERATOR, e.operator());
        assertEquals(1, summary.summary().streamLength(), "a refused string is not counted");
        assertEquals(1, summary.summary().monitored());
        summary.offer("x".repeat(60)); // a monitored string needs no room
        assertEquals(2, summary.summary().topK(4).items().getFirst().count());
        try (StringSpaceSaving other = StringSpaceSaving.create(memory, 4)) {
          fail(other);
        } catch (BudgetExceededException refused) {
          assertTrue(refused.getMessage().contains("strings"), refused.getMessage());
        }
      }
      assertEquals(0, memory.allocatedBytes());
    }
  }

  @Test
  void aDictionarysHashesAreChargedUntilTheNextDictionaryOrClose(EngineMemory memory) {
    List<String> values = List.of("a", "bb", "a", "ccc", "bb", "a");
    try (TableBuilder builder = new TableBuilder(List.of("s"), List.of(ColumnType.STRING), new boolean[] {true},
        memory.arrow())) {
      values.forEach(v -> builder.appendString(v.getBytes(StandardCharsets.UTF_8)).endRow());
      try (Table table = builder.build()) {
        DictionaryColumn column = (DictionaryColumn) table.batches().getFirst().column(0);
        long before = memory.allocatedBytes();
        try (StringSpaceSaving summary = StringSpaceSaving.create(memory, 8)) {
          summary.offerAll(column);
          long strings = 1 + 2 + 3;
          long hashes = 8L * column.dictionary().length();
          assertEquals(before + SpaceSaving.bytesFor(8) + strings + hashes, memory.allocatedBytes());
          assertEquals(3, summary.summary().topK(1).items().getFirst().count());
          assertEquals("a", summary.value(summary.summary().topK(1).items().getFirst().key()));
        }
        assertEquals(before, memory.allocatedBytes());
        try (EngineMemory tight = EngineMemory.create(MemoryBudget.of("tight", SpaceSaving.bytesFor(8) + 8));
            StringSpaceSaving summary = StringSpaceSaving.create(tight, 8)) {
          var e = assertThrows(BudgetExceededException.class, () -> summary.offerAll(column));
          assertEquals(SpaceSaving.OPERATOR, e.operator());
          assertEquals(0, summary.summary().streamLength());
        }
      }
    }
  }

  private static void fail(StringSpaceSaving unexpected) {
    throw new AssertionError("a second summary fitted beside the first: " + unexpected);
  }

  @Test
  void aMergeRefusedForItsStringsLeavesBothSummariesAsTheyWere() {
    long counters = SpaceSaving.bytesFor(4);
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("merge", 2 * counters + 150))) {
      try (StringSpaceSaving first = StringSpaceSaving.create(memory, 4);
          StringSpaceSaving second = StringSpaceSaving.create(memory, 4)) {
        first.offer("a".repeat(70));
        second.offer("b".repeat(70));
        long before = memory.allocatedBytes();
        assertThrows(BudgetExceededException.class, () -> first.merge(second));
        assertEquals(before, memory.allocatedBytes());
        assertEquals(1, first.summary().streamLength());
        assertEquals("a".repeat(70), first.value(first.summary().topK(1).items().getFirst().key()));
      }
      assertEquals(0, memory.allocatedBytes());
    }
  }

  @Test
  void badArgumentsAreRefused(EngineMemory memory) {
    assertThrows(IllegalArgumentException.class, () -> SpaceSaving.create(memory, 0));
    assertThrows(IllegalArgumentException.class, () -> SpaceSaving.create(memory, SpaceSaving.MAX_COUNTERS + 1));
    assertThrows(IllegalArgumentException.class, () -> SpaceSaving.countersFor(0));
    assertThrows(IllegalArgumentException.class, () -> SpaceSaving.countersFor(1.5));
    assertThrows(IllegalArgumentException.class, () -> SpaceSaving.countersFor(Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> SpaceSaving.countersFor(1e-9));
    assertEquals(100, SpaceSaving.countersFor(0.01));
    try (SpaceSaving summary = SpaceSaving.forError(memory, 0.1);
        SpaceSaving other = SpaceSaving.create(memory, 11);
        StringSpaceSaving strings = StringSpaceSaving.create(memory, 3)) {
      assertEquals(10, summary.counters());
      assertThrows(IllegalArgumentException.class, () -> summary.topK(-1));
      assertThrows(IllegalArgumentException.class, () -> summary.frequent(0));
      assertThrows(IllegalArgumentException.class, () -> summary.frequent(1.01));
      assertThrows(IllegalArgumentException.class, () -> summary.frequent(Double.NaN));
      assertThrows(IllegalArgumentException.class, () -> summary.merge(summary));
      assertThrows(IllegalArgumentException.class, () -> summary.merge(other));
      assertThrows(IndexOutOfBoundsException.class, () -> summary.offer(new long[4], 2, 3));
      assertThrows(IllegalArgumentException.class, () -> strings.offer((String) null));
      assertThrows(IllegalArgumentException.class, () -> strings.merge(strings));
    }
  }

  @Test
  void aClosedSummaryRefusesEverything(EngineMemory memory) {
    SpaceSaving summary = SpaceSaving.create(memory, 8);
    SpaceSaving open = SpaceSaving.create(memory, 8);
    summary.offer(1);
    summary.close();
    summary.close(); // idempotent
    assertThrows(IllegalStateException.class, () -> summary.offer(2));
    assertThrows(IllegalStateException.class, () -> summary.topK(1));
    assertThrows(IllegalStateException.class, () -> summary.frequent(0.5));
    assertThrows(IllegalStateException.class, () -> open.merge(summary));
    open.close();
    StringSpaceSaving strings = StringSpaceSaving.create(memory, 8);
    strings.offer("a");
    strings.close();
    strings.close();
    assertThrows(IllegalStateException.class, () -> strings.offer("b"));
    assertEquals(0, memory.allocatedBytes());
  }
}
