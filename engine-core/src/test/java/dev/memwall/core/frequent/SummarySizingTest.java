package dev.memwall.core.frequent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.machine.CacheLevel;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lookup's layout against synthetic machine profiles: the smallest level whose half holds the
 * least table, more slots or more counters within it, level 0 (and the counters asked for) beyond
 * the fast levels, and the bytes a summary so laid out charges.
 */
class SummarySizingTest {

  /** A VM-like machine: L1d 32 KiB usable, L2 512 KiB, L3 2 MiB usable at 15 ns (fast) or at 150 ns (as slow as memory). */
  private static MachineProfile profile(double l3Nanos) {
    return new MachineProfile("synthetic", 2,
        List.of(new MachineProfile.MeasuredCache(new CacheLevel(1, "Instruction", 32 << 10, 64, 8), 32 << 10, 1),
            new MachineProfile.MeasuredCache(new CacheLevel(1, "Data", 48 << 10, 64, 12), 32 << 10, 1.7),
            new MachineProfile.MeasuredCache(new CacheLevel(2, "Unified", 512 << 10, 64, 16), 0, 4.3),
            new MachineProfile.MeasuredCache(new CacheLevel(3, "Unified", 32 << 20, 64, 16), 2 << 20, l3Nanos)),
        200, 24, 8.3, List.of(), new MachineProfile.Bandwidth(22, 22, 35, 30, 25, 40), 4096,
        new MachineProfile.Tlb(4096, 10, 16, List.of()));
  }

  @Test
  void exactCountersGetTheSmallestLevelThatHoldsTheirTableAndItsSpareSlots() {
    MachineProfile vm = profile(15);
    // 100 counters: least table 256 slots (4 KiB); half of L1d's usable 32 KiB holds 1,024 slots
    assertEquals(new SummarySizing(100, 1024, 1, 16 << 10), SummarySizing.forCounters(vm, 100));
    // 512 counters: least table 1,024 slots (16 KiB) just fits half of L1d, with no spare
    assertEquals(new SummarySizing(512, 1024, 1, 16 << 10), SummarySizing.forCounters(vm, 512));
    // 600 counters: 2,048 slots (32 KiB) exceed L1d's half; L2's half (256 KiB) holds 4 times the least table
    assertEquals(new SummarySizing(600, 8192, 2, 256 << 10), SummarySizing.forCounters(vm, 600));
    // 20,000 counters: 65,536 slots (1 MiB) fit only the L3's half
    assertEquals(new SummarySizing(20_000, 65_536, 3, 1 << 20), SummarySizing.forCounters(vm, 20_000));
    // one counter: a table of 2 slots, grown 4 times at most
    assertEquals(new SummarySizing(1, 8, 1, 16 << 10), SummarySizing.forCounters(vm, 1));
  }

  @Test
  void atLeastFillsTheLevelWithCountersAtHalfLoad() {
    MachineProfile vm = profile(15);
    assertEquals(new SummarySizing(512, 1024, 1, 16 << 10), SummarySizing.atLeast(vm, 256));
    assertEquals(new SummarySizing(512, 1024, 1, 16 << 10), SummarySizing.atLeast(vm, 512));
    assertEquals(new SummarySizing(8192, 16_384, 2, 256 << 10), SummarySizing.atLeast(vm, 600));
    assertEquals(new SummarySizing(32_768, 65_536, 3, 1 << 20), SummarySizing.atLeast(vm, 20_000));
  }

  @Test
  void anErrorBoundNeedingMoreCountersThanFitKeepsItsCountersAtLevelZero() {
    MachineProfile vm = profile(15);
    SummarySizing big = SummarySizing.atLeast(vm, 100_000);
    assertEquals(new SummarySizing(100_000, 262_144, 0, 0), big);
    assertEquals(big, SummarySizing.forCounters(vm, 100_000));
    assertTrue(big.describe().contains("fitted to no cache level"), big.describe());
    // an L3 that measures as slow as memory offers nothing: what needed it now fits no level
    MachineProfile shared = profile(150);
    assertEquals(new SummarySizing(20_000, 65_536, 0, 0), SummarySizing.atLeast(shared, 20_000));
    assertEquals(new SummarySizing(8192, 16_384, 2, 256 << 10), SummarySizing.atLeast(shared, 600));
    // a profile without data caches fits nothing
    MachineProfile none = new MachineProfile("no caches", 1, List.of(), 100, 10, 10, List.of(), vm.bandwidth(), 4096,
        vm.tlb());
    assertEquals(SummarySizing.unfitted(300), SummarySizing.atLeast(none, 300));
    assertEquals(SummarySizing.unfitted(SpaceSaving.MAX_COUNTERS), SummarySizing.atLeast(vm, SpaceSaving.MAX_COUNTERS));
  }

  @Test
  void aSummaryLaidOutSoChargesItsLookupAndCountsAsAnyOther() {
    SummarySizing sizing = SummarySizing.forCounters(profile(15), 100);
    long bytes = SpaceSaving.bytesFor(sizing);
    assertEquals(SpaceSaving.bytesFor(100) + (1024 - 256) * 16L, bytes);
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("exact", bytes));
        SpaceSaving sparse = SpaceSaving.create(memory, sizing)) {
      assertEquals(sizing, sparse.sizing());
      long[] stream = Streams.zipf(5_000, 400, 1.1, Streams.Keys.EXTREMES, 3);
      try (EngineMemory other = EngineMemory.create("dense"); SpaceSaving dense = SpaceSaving.create(other, 100)) {
        for (long key : stream) {
          sparse.offer(key);
          dense.offer(key);
        }
        // the layout of the lookup changes no count: the same stream gives the same answer
        assertEquals(dense.topK(100), sparse.topK(100));
        assertEquals(dense.unmonitoredBound(), sparse.unmonitoredBound());
      }
      assertThrows(BudgetExceededException.class, () -> StringSpaceSaving.create(memory, sizing));
    }
  }

  @Test
  void badLayoutsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> SummarySizing.unfitted(0));
    assertThrows(IllegalArgumentException.class, () -> SummarySizing.forCounters(profile(15), -1));
    assertThrows(IllegalArgumentException.class, () -> SummarySizing.atLeast(profile(15), SpaceSaving.MAX_COUNTERS + 1));
    assertThrows(IllegalArgumentException.class, () -> new SummarySizing(100, 128, 1, 0)); // fuller than half
    assertThrows(IllegalArgumentException.class, () -> new SummarySizing(100, 300, 1, 0)); // not a power of two
  }
}
