package dev.memwall.core.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.OffHeapBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Growing arrays take their larger buffer without zeroing it first ({@link
 * EngineMemory#allocateUninitialized}): the old contents are copied over the front and only the rest
 * is zeroed. Checked over a pool of regions an earlier owner left full of ones, so a slot the growth
 * forgot to zero would read as -1.
 */
@ExtendWith(LeakCheck.class)
class GrowthOverReusedMemoryTest {
  /**
   * Pools one region of every size class from 4 KiB to 2 MiB, each filled with ones (larger growths
   * ask for huge pages, pooled apart).
   */
  private static void dirtyThePool(EngineMemory memory) {
    List<OffHeapBuffer> dirty = new ArrayList<>();
    for (long bytes = 4096; bytes < 2L << 20; bytes += Math.max(4096, Long.highestOneBit(bytes) >>> 2)) {
      OffHeapBuffer buffer = memory.allocate(bytes);
      buffer.segment().fill((byte) -1);
      dirty.add(buffer);
    }
    dirty.forEach(OffHeapBuffer::close);
    assertTrue(memory.recycledBytes() > 0, "the dirty regions are pooled");
  }

  @Test
  void aGrownLongArrayKeepsItsValuesAndIsZeroBeyondThem(EngineMemory memory) {
    dirtyThePool(memory);
    long pooled = memory.recycledBytes();
    try (OffHeapLongArray array = new OffHeapLongArray(memory, 1000)) {
      for (long i = 0; i < 1000; i++) {
        array.set(i, i + 1);
      }
      array.ensureCapacity(100_000);
      assertTrue(memory.recycledBytes() < pooled, "the growth took a dirty region");
      for (long i = 0; i < array.capacity(); i++) {
        assertEquals(i < 1000 ? i + 1 : 0, array.get(i), "slot " + i);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(AggregateLayout.class)
  void grownGroupColumnsKeepTheirGroupsAndAreZeroBeyondThem(AggregateLayout layout, EngineMemory memory) {
    dirtyThePool(memory);
    long pooled = memory.recycledBytes();
    try (GroupColumns columns = new GroupColumns(memory, 3, 1000, layout)) {
      List<GroupColumns.Column> claimed = List.of(columns.claim(), columns.claim(), columns.claim());
      for (int c = 0; c < 3; c++) {
        for (long g = 0; g < 1000; g++) {
          claimed.get(c).set(g, g * 3 + c + 1);
        }
      }
      claimed.getFirst().ensureCapacity(15_000);
      assertTrue(memory.recycledBytes() < pooled, "the growth took a dirty region");
      for (int c = 0; c < 3; c++) {
        for (long g = 0; g < 15_000; g++) {
          assertEquals(g < 1000 ? g * 3 + c + 1 : 0, claimed.get(c).get(g), "column " + c + ", group " + g);
        }
      }
    }
  }
}
