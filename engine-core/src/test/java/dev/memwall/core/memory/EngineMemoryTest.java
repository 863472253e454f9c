package dev.memwall.core.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link OffHeapBuffer} and {@link EngineMemory}: zeroing, alignment, close, leaks, budgets, huge pages. */
@ExtendWith(LeakCheck.class)
class EngineMemoryTest {
  @Test
  void allocationIsZeroedAlignedAndCharged(EngineMemory memory) {
    for (long size : new long[] {0, 1, 63, 64, 1000, 4096 + 7, 1 << 20}) {
      try (OffHeapBuffer buffer = memory.allocate(size)) {
        MemorySegment segment = buffer.segment();
        assertEquals(size, buffer.byteSize());
        assertEquals(0, segment.address() % 64, "address of a " + size + " byte buffer");
        assertEquals(-1, segment.mismatch(MemorySegment.ofArray(new byte[(int) size])), "not zeroed");
        assertEquals(size, memory.allocatedBytes());
        assertFalse(buffer.isClosed());
        assertFalse(buffer.hugePages());
      }
      assertEquals(0, memory.allocatedBytes());
    }
  }

  @Test
  void closeIsIdempotentAndAccessAfterCloseThrows(EngineMemory memory) {
    OffHeapBuffer buffer = memory.allocate(128);
    MemorySegment segment = buffer.segment();
    segment.set(ValueLayout.JAVA_LONG, 8, 42L);
    buffer.close();
    buffer.close();
    assertTrue(buffer.isClosed());
    assertEquals(0, memory.allocatedBytes());
    assertThrows(IllegalStateException.class, () -> segment.get(ValueLayout.JAVA_LONG, 8));
    assertThrows(IllegalStateException.class, () -> segment.set(ValueLayout.JAVA_LONG, 0, 1L));
  }

  @Test
  void negativeSizeIsRejected(EngineMemory memory) {
    assertThrows(IllegalArgumentException.class, () -> memory.allocate(-1));
    assertEquals(0, memory.allocatedBytes());
  }

  @Test
  void rawAllocationBeyondTheBudgetIsRefusedAndChargesNothing(EngineMemory unused) {
    long live = OffHeapBuffer.liveBuffers();
    try (EngineMemory small = EngineMemory.create(MemoryBudget.of("tiny-raw", 1024))) {
      OffHeapBuffer fits = small.allocate(1000);
      var e = assertThrows(BudgetExceededException.class, () -> small.allocate(25));
      assertEquals("tiny-raw", e.budgetName());
      assertEquals(1000, small.allocatedBytes());
      assertEquals(live + 1, OffHeapBuffer.liveBuffers());
      fits.close();
    }
  }

  @Test
  void leakedRawBufferFailsCloseAndIsFreed(EngineMemory unused) {
    EngineMemory leaky = EngineMemory.create("leaky-raw");
    OffHeapBuffer leaked = leaky.allocate(4096);
    OffHeapBuffer closed = leaky.allocate(100);
    closed.close();
    var e = assertThrows(MemoryLeakException.class, leaky::close);
    assertTrue(e.getMessage().contains("leaky-raw") && e.getMessage().contains("1 raw buffers (4096 bytes)"),
        e.getMessage());
    assertTrue(leaked.isClosed(), "close frees leaked raw buffers");
    assertEquals(0, leaky.budget().reservedBytes());
  }

  @Test
  void leakedArrowVectorFailsClose(EngineMemory unused) {
    EngineMemory leaky = EngineMemory.create("leaky-arrow");
    BigIntVector vector = new BigIntVector("v", leaky.arrow());
    try {
      vector.allocateNew(1000);
      var e = assertThrows(MemoryLeakException.class, leaky::close);
      assertTrue(e.getMessage().contains("leaky-arrow") && e.getMessage().contains("Arrow buffers"),
          e.getMessage());
    } finally {
      vector.close(); // the leaked buffers still belong to the vector; freeing them must work
    }
    assertEquals(0, leaky.budget().reservedBytes());
    leaky.close(); // nothing leaks any more
  }

  @Test
  void openChildAllocatorFailsClose(EngineMemory unused) {
    EngineMemory leaky = EngineMemory.create("leaky-child");
    var child = leaky.arrow().newChildAllocator("operator", 0, Long.MAX_VALUE);
    var e = assertThrows(MemoryLeakException.class, leaky::close);
    assertTrue(e.getMessage().contains("leaky-child") && e.getMessage().contains("1 open child"), e.getMessage());
    child.close();
    leaky.close();
  }

  @Test
  void cleanEngineMemoryClosesQuietly(EngineMemory unused) {
    EngineMemory clean = EngineMemory.create("clean");
    try (BigIntVector vector = new BigIntVector("v", clean.arrow())) {
      vector.allocateNew(10);
      assertTrue(clean.allocatedBytes() > 0);
    }
    clean.allocate(10).close();
    clean.close();
    assertEquals(0, clean.allocatedBytes());
  }

  @Test
  void arrowAllocationBeyondTheBudgetNamesTheBudget(EngineMemory unused) {
    try (EngineMemory small = EngineMemory.create(MemoryBudget.of("small-arrow", 1 << 16))) {
      try (BigIntVector vector = new BigIntVector("v", small.arrow())) {
        RuntimeException e = assertThrows(RuntimeException.class, () -> vector.allocateNew(1_000_000));
        BudgetExceededException cause = findCause(e);
        assertEquals("small-arrow", cause.budgetName());
        assertTrue(cause.getMessage().contains("small-arrow"));
        assertEquals(0, small.allocatedBytes(), "a refused Arrow allocation charges nothing");
        vector.allocateNew(100); // the allocator is still usable
        vector.setSafe(99, 7L);
        assertEquals(7L, vector.get(99));
      }
      assertEquals(0, small.allocatedBytes());
    }
  }

  @Test
  void hugePagePlacementIsUsable(EngineMemory memory) {
    long size = 3 * HugePages.HUGE_PAGE_BYTES + 5;
    try (OffHeapBuffer buffer = memory.allocate(size, Placement.HUGE_PAGES)) {
      assertEquals(HugePages.isSupported(), buffer.hugePages());
      MemorySegment segment = buffer.segment();
      assertEquals(size, segment.byteSize());
      assertEquals(size, memory.allocatedBytes());
      assertEquals(0, segment.address() % 64);
      assertEquals(-1, segment.mismatch(MemorySegment.ofArray(new byte[(int) size])), "not zeroed");
      for (long i = 0; i < size / 8; i += 4099) {
        segment.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 31);
      }
      segment.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 9);
      for (long i = 0; i < size / 8; i += 4099) {
        assertEquals(i * 31, segment.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i));
      }
      assertEquals(9, segment.get(ValueLayout.JAVA_BYTE, size - 1));
      assertThrows(IndexOutOfBoundsException.class, () -> segment.get(ValueLayout.JAVA_BYTE, size));
    }
    assertEquals(0, memory.allocatedBytes());
  }

  @Test
  void hugePagePlacementOfASmallBufferFallsBack(EngineMemory memory) {
    try (OffHeapBuffer buffer = memory.allocate(HugePages.HUGE_PAGE_BYTES - 1, Placement.HUGE_PAGES)) {
      assertFalse(buffer.hugePages());
      assertEquals(HugePages.HUGE_PAGE_BYTES - 1, buffer.byteSize());
      assertEquals(0, buffer.segment().address() % 64);
    }
  }

  private static BudgetExceededException findCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BudgetExceededException b) {
        return b;
      }
    }
    throw new AssertionError("no BudgetExceededException in the cause chain", e);
  }
}
