package dev.memwall.core.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** {@link NativeMemory}, and the {@link BufferRecycler.Region}s allocated from it or mapped outside any arena. */
class NativeMemoryTest {
  private static final boolean LINUX = System.getProperty("os.name", "").toLowerCase().contains("linux");

  @Test
  void memoryIsZeroedAlignedBoundedAndWritable() {
    assertTrue(!LINUX || NativeMemory.isSupported(), "the C library links on Linux");
    if (!NativeMemory.isSupported()) {
      return;
    }
    for (long size : new long[] {1, 8, 63, 64, 1000, 4096 + 7, 3 << 20}) {
      MemorySegment memory = NativeMemory.allocate(size, 64);
      try {
        assertEquals(size, memory.byteSize());
        assertEquals(0, memory.address() % 64, "address of " + size + " bytes");
        assertEquals(-1, memory.mismatch(MemorySegment.ofArray(new byte[(int) size])), "not zeroed");
        memory.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 5);
        assertEquals(5, memory.get(ValueLayout.JAVA_BYTE, size - 1));
        assertThrows(IndexOutOfBoundsException.class, () -> memory.get(ValueLayout.JAVA_BYTE, size));
      } finally {
        NativeMemory.free(memory);
      }
    }
  }

  @Test
  void aRefusedAllocationIsAnOutOfMemoryError() {
    if (NativeMemory.isSupported()) {
      assertThrows(OutOfMemoryError.class, () -> NativeMemory.allocate(Long.MAX_VALUE / 2, 64));
    }
  }

  @Test
  void regionsHaveNoArenaToCloseWhereTheCLibraryLinks() {
    for (Placement placement : Placement.values()) {
      BufferRecycler.Region region = BufferRecycler.Region.allocate(3 * HugePages.HUGE_PAGE_BYTES + 64, placement);
      try {
        if (NativeMemory.isSupported()) {
          assertNull(region.owner(), "a region's free must not be a shared arena's close (a handshake): " + placement);
        }
        boolean huge = placement == Placement.HUGE_PAGES && HugePages.isSupported();
        assertEquals(huge, region.hugePages(), placement.name());
        assertEquals(3 * HugePages.HUGE_PAGE_BYTES + 64, region.bytes());
        assertEquals(0, region.memory().address() % 64);
        region.memory().set(ValueLayout.JAVA_LONG, region.bytes() - 8, 42L);
        assertEquals(42L, region.memory().get(ValueLayout.JAVA_LONG, region.bytes() - 8));
      } finally {
        region.free();
      }
    }
  }
}
