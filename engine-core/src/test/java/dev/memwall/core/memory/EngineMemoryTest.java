package dev.memwall.core.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
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
        assertEquals(size == 0 ? 0 : BufferRecycler.classBytes(size), memory.allocatedBytes(),
            "charged at its size class");
        assertFalse(buffer.isClosed());
        assertFalse(buffer.hugePages());
      }
      assertEquals(0, memory.allocatedBytes());
    }
  }

  @Test
  void withoutScopeChecksAFreedRegionComesBackZeroedAsABoundsCheckedSlice() {
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("no scope checks", 1 << 20), 1 << 20, false)) {
      OffHeapBuffer first = memory.allocate(1000);
      MemorySegment stale = first.segment();
      stale.fill((byte) 7);
      first.close();
      assertEquals(0, memory.allocatedBytes());
      try (OffHeapBuffer second = memory.allocate(1000)) {
        assertEquals(stale.address(), second.segment().address(), "the pooled region is reused");
        assertEquals(-1, second.segment().mismatch(MemorySegment.ofArray(new byte[1000])), "raw memory is zeroed again");
        // the documented cost of skipping the per-buffer arena: a stale segment is only bounds-checked
        assertEquals(0, stale.get(ValueLayout.JAVA_BYTE, 999));
        assertThrows(IndexOutOfBoundsException.class, () -> stale.get(ValueLayout.JAVA_BYTE, 1000));
      }
    }
  }

  @Test
  void theTestSuiteChecksScopes() {
    assertTrue(OffHeapBuffer.SCOPE_CHECKS, "assertions are on in the tests, so every buffer has an arena of its own");
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
      assertEquals(BufferRecycler.classBytes(size), memory.allocatedBytes());
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
    long size = HugePages.HUGE_PAGE_BYTES * 3 / 4; // its size class, too, is below a huge page
    try (OffHeapBuffer buffer = memory.allocate(size, Placement.HUGE_PAGES)) {
      assertFalse(buffer.hugePages());
      assertEquals(size, buffer.byteSize());
      assertEquals(0, buffer.segment().address() % 64);
    }
  }

  @Test
  void freedArrowMemoryIsReusedStillChargedAndFreedWithTheMemory(EngineMemory unused) {
    EngineMemory memory = EngineMemory.create(MemoryBudget.of("recycling", 64L << 20));
    long address;
    try (BigIntVector first = new BigIntVector("first", memory.arrow())) {
      first.allocateNew(10_000);
      address = first.getDataBuffer().memoryAddress();
    }
    long pooled = memory.recycledBytes();
    assertTrue(pooled > 0, "a freed Arrow buffer is kept for reuse");
    assertEquals(0, memory.allocatedBytes(), "recycled memory is not in use");
    assertEquals(pooled, memory.budget().reservedBytes(), "recycled memory stays charged");
    try (BigIntVector second = new BigIntVector("second", memory.arrow())) {
      second.allocateNew(10_000);
      assertEquals(address, second.getDataBuffer().memoryAddress(), "the same size reuses the freed region");
      assertEquals(0, memory.recycledBytes());
      for (int i = 0; i < 10_000; i++) {
        assertTrue(second.isNull(i), "Arrow clears the validity of a reused region");
      }
    }
    memory.close();
    assertEquals(0, memory.budget().reservedBytes(), "close frees the recycled regions");
  }

  @Test
  void aSegmentOfAFreedBufferFailsEvenAfterItsRegionIsReused(EngineMemory memory) {
    MemorySegment stale;
    try (BigIntVector first = new BigIntVector("first", memory.arrow())) {
      first.allocateNew(1000);
      first.setSafe(3, 42L);
      stale = ArrowSegments.of(first.getDataBuffer());
      assertEquals(42L, stale.getAtIndex(ValueLayout.JAVA_LONG, 3));
    }
    try (BigIntVector second = new BigIntVector("second", memory.arrow())) {
      second.allocateNew(1000);
      second.setSafe(3, 7L);
      MemorySegment fresh = ArrowSegments.of(second.getDataBuffer());
      assertEquals(stale.address(), fresh.address(), "the region was reused");
      assertThrows(IllegalStateException.class, () -> stale.getAtIndex(ValueLayout.JAVA_LONG, 3));
      assertEquals(7L, fresh.getAtIndex(ValueLayout.JAVA_LONG, 3));
    }
  }

  @Test
  void recycledMemoryGivesWayBeforeTheBudgetRefuses(EngineMemory unused) {
    long budget = 4L << 20;
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("tight", budget), budget)) {
      try (BigIntVector big = new BigIntVector("big", memory.arrow())) {
        big.allocateNew(300_000); // 2.4 MB of values: a 4 MiB region with the validity
      }
      assertTrue(memory.recycledBytes() > budget / 2);
      try (IntVector other = new IntVector("other", memory.arrow())) {
        other.allocateNew(400_000); // a 2 MiB region: fits only once the 4 MiB one is given up
        assertEquals(0, memory.recycledBytes());
      }
      assertThrows(BudgetExceededException.class, () -> memory.allocate(budget + 1));
    }
  }

  @Test
  void recyclingKeepsAtMostItsLimit(EngineMemory unused) {
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.unbounded("limited"), 1 << 20)) {
      List<BigIntVector> vectors = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        BigIntVector vector = new BigIntVector("v" + i, memory.arrow());
        vector.allocateNew(50_000); // 512 KiB regions
        vectors.add(vector);
      }
      vectors.forEach(BigIntVector::close);
      assertEquals(1 << 20, memory.recycledBytes());
      assertEquals(1 << 20, memory.budget().reservedBytes(), "regions beyond the limit are freed at once");
    }
    try (EngineMemory off = EngineMemory.create(MemoryBudget.unbounded("off"), 0);
        BigIntVector vector = new BigIntVector("v", off.arrow())) {
      vector.allocateNew(1000);
      vector.close();
      assertEquals(0, off.recycledBytes());
      assertEquals(0, off.budget().reservedBytes());
    }
  }

  /**
   * An operator's working memory (a child) hands its freed regions to the parent's pool when it
   * closes, and the next operator's takes them from there, each region charged once all along.
   */
  @Test
  void aChildsFreedRegionsOutliveItInTheParentsPoolForTheNextChild(EngineMemory unused) {
    long mib = 1 << 20;
    try (EngineMemory parent = EngineMemory.create(MemoryBudget.of("query", 64 * mib))) {
      long address;
      try (EngineMemory first = parent.child("first operator", 32 * mib)) {
        try (OffHeapBuffer buffer = first.allocate(mib)) {
          address = buffer.segment().address();
        }
        assertEquals(mib, first.recycledBytes());
      }
      assertEquals(mib, parent.recycledBytes(), "the closed child's pool moved to the parent's");
      assertEquals(mib, parent.budget().reservedBytes(), "charged once, to the parent");
      try (EngineMemory second = parent.child("second operator", 32 * mib)) {
        try (OffHeapBuffer buffer = second.allocate(mib)) {
          assertEquals(address, buffer.segment().address(), "the next child reuses the region");
          assertEquals(0, parent.recycledBytes());
          assertEquals(mib, second.budget().reservedBytes());
          assertEquals(mib, parent.budget().reservedBytes(), "still charged once");
        }
      }
      assertEquals(mib, parent.recycledBytes());
      // a child whose budget refuses the parent's region: it goes back, and is given up before the refusal
      try (EngineMemory tight = parent.child("tight operator", 4 * mib);
          OffHeapBuffer held = tight.allocate(3 * mib + mib / 2)) {
        assertThrows(BudgetExceededException.class, () -> tight.allocate(mib));
        assertEquals(0, parent.recycledBytes());
        assertEquals(3 * mib + mib / 2, parent.budget().reservedBytes(), "nothing charged twice or lost");
      }
      assertEquals(parent.recycledBytes(), parent.budget().reservedBytes());
    }
  }

  /** A host taking memory back: trim frees what this memory and its open children keep for reuse. */
  @Test
  void trimFreesThePoolsOfTheMemoryAndItsOpenChildren(EngineMemory unused) {
    long mib = 1 << 20;
    try (EngineMemory parent = EngineMemory.create(MemoryBudget.of("task", 64 * mib));
        EngineMemory operator = parent.child("operator", 32 * mib)) {
      parent.allocate(mib).close();
      operator.allocate(2 * mib).close();
      assertEquals(3 * mib, parent.budget().reservedBytes(), "both pools stay charged to the task");
      assertEquals(3 * mib, parent.trim());
      assertEquals(0, parent.budget().reservedBytes());
      assertEquals(0, operator.recycledBytes());
      assertEquals(0, parent.trim(), "nothing left to free");
    }
  }

  @Test
  void sizeClassesRoundUpByAtMostAQuarterAndKeepPowersOfTwo() {
    long previous = 0;
    for (long bytes = 1; bytes < 1L << 40; bytes = bytes * 3 / 2 + 1) {
      for (long b : new long[] {bytes, Long.highestOneBit(bytes)}) {
        long c = BufferRecycler.classBytes(b);
        assertTrue(c >= b && c <= Math.max(8, b + b / 4), b + " -> " + c);
        if (Long.bitCount(b) == 1 && b >= 8) {
          assertEquals(b, c, "a power of two is its own class");
        }
      }
      long c = BufferRecycler.classBytes(bytes);
      assertTrue(c >= previous, "classes grow with the request");
      previous = c;
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
