package dev.memwall.core.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A pool frees the regions that stay untaken for {@link BufferRecycler#IDLE_NANOS}, and only those. */
class IdleRegionsTest {
  private static final long MIB = 1L << 20;

  private final AtomicLong now = new AtomicLong(1_000);
  private final MemoryBudget budget = MemoryBudget.of("idle", 64 * MIB);
  private final BufferRecycler pool = new BufferRecycler(budget, 32 * MIB, false, null, now::get);

  @Test
  void aRegionIdleForTheWholePeriodIsFreedByTheNextRegionPooled() {
    free(allocate(MIB));
    now.addAndGet(BufferRecycler.IDLE_NANOS - 1);
    free(allocate(2 * MIB));
    assertEquals(3 * MIB, pool.pooledBytes(), "one nanosecond short of idle: both stay");

    now.addAndGet(1);
    free(allocate(4 * MIB));
    assertEquals(6 * MIB, pool.pooledBytes(), "the first region went back to the operating system");
    assertEquals(6 * MIB, budget.reservedBytes(), "and its charge with it");

    now.addAndGet(BufferRecycler.IDLE_NANOS);
    free(allocate(MIB));
    assertEquals(MIB, pool.pooledBytes(), "only the region just given stays");
    pool.close();
    assertEquals(0, budget.reservedBytes());
  }

  @Test
  void aRegionTakenAgainIsYoungWhenItComesBack() {
    free(allocate(MIB));
    now.addAndGet(BufferRecycler.IDLE_NANOS - 1);
    OffHeapBuffer again = allocate(MIB);
    assertEquals(0, pool.pooledBytes(), "the pooled region served the request");
    free(again);
    now.addAndGet(BufferRecycler.IDLE_NANOS - 1);
    free(allocate(2 * MIB));
    assertEquals(3 * MIB, pool.pooledBytes(), "idle for less than the period since it came back");
    pool.close();
    assertEquals(0, budget.reservedBytes());
  }

  @Test
  void freeingIdleRegionsLeavesYoungerOnesOfTheSameSize() {
    OffHeapBuffer old = allocate(MIB);
    OffHeapBuffer young = allocate(MIB);
    free(old);
    now.addAndGet(BufferRecycler.IDLE_NANOS / 2);
    free(young);
    assertEquals(BufferRecycler.classBytes(MIB), pool.freeIdle(now.get() + BufferRecycler.IDLE_NANOS / 2));
    assertEquals(MIB, pool.pooledBytes(), "the younger region of the same class stays");
    pool.close();
    assertEquals(0, budget.reservedBytes());
  }

  private OffHeapBuffer allocate(long bytes) {
    return OffHeapBuffer.recycled(pool, bytes, Placement.DEFAULT, false, buffer -> {});
  }

  private static void free(OffHeapBuffer buffer) {
    buffer.close();
  }
}
