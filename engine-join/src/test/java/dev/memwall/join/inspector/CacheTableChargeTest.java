package dev.memwall.join.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.join.algorithm.JoinInput;
import dev.memwall.join.common.JoinMemoryException;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.keys.KeyColumns;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link CacheTable}'s heap arrays are charged to the join's budget as they grow: equal keys share
 * one sub-partition however it is split, so under skew a table is as large as a whole side. A growth
 * the budget refuses is a {@link JoinMemoryException} naming the sub-partition, with nothing charged;
 * a granted one shows in the budget until the table is closed, and reuse within the grown size
 * charges nothing more.
 */
@ExtendWith(LeakCheck.class)
class CacheTableChargeTest {
  private static final int RECORD_BYTES = 16;
  /** A sub-partition of equal keys: every build tuple has the same hash code. */
  private static final int SKEWED = 400_000;
  /** The arrays for it: heads (a power of two at least the tuples) and next and codes (the tuples each). */
  private static final long SKEWED_BYTES = Integer.BYTES * (524_288L + 2L * SKEWED);

  @Test
  void aRefusedGrowthFailsByNameAndChargesNothing(EngineMemory memory) {
    MemoryBudget tight = MemoryBudget.of("tight", 1 << 20);
    try (Table keys = keys(memory); Arena arena = Arena.ofConfined(); EngineMemory limited = EngineMemory.create(tight);
        CacheTable table = table(keys, limited)) {
      MemorySegment records = arena.allocate((long) RECORD_BYTES * SKEWED);
      MemorySegment codes = arena.allocate((long) Integer.BYTES * SKEWED); // all zero: one bucket chain
      table.build(records, codes, 0, 1_000); // a sub-partition of the size the sizing aims at fits
      long small = tight.reservedBytes();
      JoinMemoryException e = assertThrows(JoinMemoryException.class, () -> table.build(records, codes, 0, SKEWED));
      assertTrue(e.getMessage().contains("sub-partition of " + SKEWED + " build tuples") && e.getMessage().contains("tight"),
          e.getMessage());
      assertEquals(SKEWED_BYTES, e.requiredBytes());
      assertEquals(small, tight.reservedBytes(), "a refused growth charged something");
    }
    assertEquals(0, tight.reservedBytes(), "closing the table returned its charge");
  }

  @Test
  void aGrantedGrowthIsChargedUntilClose(EngineMemory memory) {
    MemoryBudget roomy = MemoryBudget.of("roomy", 64 << 20);
    try (Table keys = keys(memory); Arena arena = Arena.ofConfined(); EngineMemory enough = EngineMemory.create(roomy)) {
      MemorySegment records = arena.allocate((long) RECORD_BYTES * SKEWED);
      MemorySegment codes = arena.allocate((long) Integer.BYTES * SKEWED);
      try (CacheTable table = table(keys, enough)) {
        table.build(records, codes, 0, SKEWED);
        assertEquals(SKEWED_BYTES, roomy.reservedBytes());
        table.build(records, codes, 0, SKEWED / 2); // reused within its grown arrays
        assertEquals(SKEWED_BYTES, roomy.reservedBytes());
      }
      assertEquals(0, roomy.reservedBytes());
    }
  }

  private static CacheTable table(Table keys, EngineMemory memory) {
    KeyColumns[] sides = KeyColumns.pair(keys, List.of("k"), keys, List.of("k"));
    return new CacheTable(new JoinInput(sides[0], sides[1], JoinType.INNER, memory), null, RECORD_BYTES, null);
  }

  private static Table keys(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k"), List.of(ColumnType.INT64), memory.arrow())) {
      builder.appendLong(7).endRow();
      return builder.build();
    }
  }
}
