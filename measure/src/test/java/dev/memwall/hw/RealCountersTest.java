package dev.memwall.hw;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.memwall.core.machine.MemoryProbe;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Counts on a machine that has hardware counters (skipped, by assumption, where the probe finds
 * none, as on the development VMs): known loops must give plausible instruction counts, and a
 * random walk over 256 MiB far more cache, TLB and branch misses than a sequential pass. Events
 * the PMU lacks are skipped one by one.
 */
@ExtendWith(LeakCheck.class)
class RealCountersTest {
  private static volatile long sink;

  @BeforeEach
  void onlyWithCounters() {
    assumeTrue(HardwareCounters.availability().available(), HardwareCounters.availability().describe());
  }

  @Test
  void aDependentChaseRetiresAboutOneLoadPerStep(EngineMemory memory) {
    long steps = 1L << 22;
    try (OffHeapBuffer buffer = memory.allocate(16L << 10)) { // fits L1: no misses to speak of
      MemorySegment ring = buffer.segment();
      MemoryProbe.buildRing(ring, ring.byteSize(), 64, 1);
      for (int i = 0; i < 20; i++) {
        sink = sink ^ MemoryProbe.chase(ring, 0, 1 << 16); // compiled before counting
      }
      CounterReading reading = HardwareCounters.count(EnumSet.of(HwEvent.CYCLES, HwEvent.INSTRUCTIONS),
          () -> sink = sink ^ MemoryProbe.chase(ring, 0, steps));
      CounterReading.Available counted = assertInstanceOf(CounterReading.Available.class, reading, reading.describe());
      long instructions = counted.count(HwEvent.INSTRUCTIONS).orElseThrow();
      // each step is a load plus loop control (3-6 instructions); the enable/disable path adds little
      assertTrue(instructions >= steps && instructions <= 20 * steps + 1_000_000, counted.describe());
      OptionalLong cycles = counted.count(HwEvent.CYCLES);
      if (cycles.isPresent()) {
        // a dependent L1 hit is 4-5 cycles of latency: at least 2 per step; and at most ~100 even if descheduled
        assertTrue(cycles.getAsLong() >= 2 * steps && cycles.getAsLong() <= 100 * steps, counted.describe());
      }
      assertTrue(counted.wallNanos() > 0);
    }
  }

  @Test
  void aRandomWalkOver256MiBMissesFarMoreThanASequentialPass(EngineMemory memory) {
    long bytes = 256L << 20;
    long accesses = 1L << 21;
    try (OffHeapBuffer buffer = memory.allocate(bytes)) {
      MemorySegment ring = buffer.segment();
      MemoryProbe.buildRing(ring, bytes, 64, 7);
      MemorySegment sequential = ring.asSlice(0, accesses * Long.BYTES);
      for (int i = 0; i < 10; i++) {
        sink = sink ^ MemoryProbe.chase(ring, 0, 1 << 14) ^ MemoryProbe.read(sequential.asSlice(0, 1 << 16));
      }
      EnumSet<HwEvent> events = EnumSet.of(HwEvent.LLC_LOAD_MISSES, HwEvent.CACHE_MISSES,
          HwEvent.L1_DCACHE_LOAD_MISSES, HwEvent.DTLB_LOAD_MISSES);
      CounterReading.Available random = assertInstanceOf(CounterReading.Available.class,
          HardwareCounters.count(events, () -> sink = sink ^ MemoryProbe.chase(ring, 0, accesses)));
      CounterReading.Available linear = assertInstanceOf(CounterReading.Available.class,
          HardwareCounters.count(events, () -> sink = sink ^ MemoryProbe.read(sequential)));
      int compared = 0;
      for (HwEvent event : events) {
        if (random.count(event).isEmpty() || linear.count(event).isEmpty()) {
          continue; // this PMU lacks it (LLC-load-misses on AMD Zen)
        }
        long r = random.count(event).getAsLong();
        long s = linear.count(event).getAsLong();
        // 2M random lines of 256 MiB nearly all miss every level and the TLB; 2M sequential longs are
        // 256K lines (8x fewer even if every line missed and prefetches counted) on 4K pages
        assertTrue(r >= accesses / 4, event.perfName() + ": random " + random.describe());
        assertTrue(r >= 4 * s, event.perfName() + ": random " + r + " vs sequential " + s);
        compared++;
      }
      assertTrue(compared >= 2, "at least two miss events counted: " + random.describe());
    }
  }

  @Test
  void randomOutcomesMispredictAboutHalfTheBranchesSortedOnesAlmostNone(EngineMemory memory) {
    int values = 1 << 20;
    try (OffHeapBuffer random = memory.allocate(4L * values);
        OffHeapBuffer sorted = memory.allocate(4L * values);
        OffHeapBuffer out = memory.allocate(4L * values)) {
      int[] data = new SplittableRandom(3).ints(values, 0, Integer.MAX_VALUE).toArray();
      MemorySegment.copy(data, 0, random.segment(), ValueLayout.JAVA_INT, 0, values);
      java.util.Arrays.sort(data);
      MemorySegment.copy(data, 0, sorted.segment(), ValueLayout.JAVA_INT, 0, values);
      int threshold = data[values / 2];
      for (int i = 0; i < 20; i++) {
        sink = sink ^ MemoryProbe.filterBelow(random.segment().asSlice(0, 1 << 16), threshold, out.segment());
      }
      EnumSet<HwEvent> events = EnumSet.of(HwEvent.BRANCH_MISSES);
      CounterReading onRandom = HardwareCounters.count(events,
          () -> sink = sink ^ MemoryProbe.filterBelow(random.segment(), threshold, out.segment()));
      CounterReading onSorted = HardwareCounters.count(events,
          () -> sink = sink ^ MemoryProbe.filterBelow(sorted.segment(), threshold, out.segment()));
      assumeTrue(onRandom instanceof CounterReading.Available a && a.count(HwEvent.BRANCH_MISSES).isPresent(),
          "branch-misses not counted here: " + onRandom.describe());
      long missesRandom = ((CounterReading.Available) onRandom).count(HwEvent.BRANCH_MISSES).getAsLong();
      long missesSorted = ((CounterReading.Available) onSorted).count(HwEvent.BRANCH_MISSES).getAsLong();
      assertTrue(missesRandom >= values / 4 && missesRandom <= values, onRandom.describe());
      assertTrue(missesSorted <= values / 50, onSorted.describe());
      int kept = MemoryProbe.filterBelow(random.segment(), threshold, out.segment());
      assertTrue(Math.abs(kept - values / 2) <= 2, "the median splits the values in half: " + kept);
    }
  }
}
