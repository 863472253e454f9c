package dev.memwall.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.hw.StallBreakdown.Component;
import dev.memwall.hw.StallBreakdown.Stall;
import dev.memwall.core.machine.CacheLevel;
import dev.memwall.core.machine.MachineProfile;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * Seed 003's eq. 1-2 on synthetic readings and a synthetic profile, against a reference computed
 * another way: with full information the disjoint classes telescope to
 * {@code l1 x L2 + l2 x (L3 - L2) + llc x (T1 - L3)}, and every missing counter can only lower T_M.
 */
class StallBreakdownTest {
  static final double L1 = 1.0;
  static final double L2 = 4.0;
  static final double L3 = 12.0;
  static final double T1 = 100.0;
  static final double TLB = 8.0;
  static final double BRANCH = 3.0;

  static MachineProfile profile(String cpu, boolean withL3, double branchNanos) {
    List<MachineProfile.MeasuredCache> caches = new java.util.ArrayList<>(List.of(
        new MachineProfile.MeasuredCache(new CacheLevel(1, "Data", 32 << 10, 64, 8), 32 << 10, L1),
        new MachineProfile.MeasuredCache(new CacheLevel(1, "Instruction", 32 << 10, 64, 8), 0, 99.0),
        new MachineProfile.MeasuredCache(new CacheLevel(2, "Unified", 1 << 20, 64, 16), 1 << 20, L2)));
    if (withL3) {
      caches.add(new MachineProfile.MeasuredCache(new CacheLevel(3, "Unified", 32 << 20, 64, 16), 8 << 20, L3));
    }
    return new MachineProfile(cpu, 2, caches, T1, T1 / 8, 8, List.of(),
        new MachineProfile.Bandwidth(1, 1, 1, 1, 1, 1), 4096, new MachineProfile.Tlb(4096, TLB, 0, List.of()),
        branchNanos, List.of());
  }

  static CounterReading.Available reading(long wallNanos, Map<HwEvent, Long> counts) {
    Map<HwEvent, CounterReading.EventCount> map = new EnumMap<>(HwEvent.class);
    counts.forEach((e, n) -> map.put(e, new CounterReading.EventCount(n, 1_000, 1_000)));
    Map<HwEvent, String> notCounted = new EnumMap<>(HwEvent.class);
    for (HwEvent e : HwEvent.values()) {
      if (!counts.containsKey(e)) {
        notCounted.put(e, "not supported by this PMU: ENOENT");
      }
    }
    return new CounterReading.Available(map, notCounted, wallNanos, true);
  }

  private static Stall term(StallBreakdown b, Component c) {
    return b.stalls().stream().filter(s -> s.component() == c).findFirst().orElse(null);
  }

  @Test
  void intelWithEveryLevelSplitsTheMissesIntoDisjointClasses() {
    StallBreakdown b = StallBreakdown.of(reading(1_000_000, Map.of(HwEvent.L1_DCACHE_LOAD_MISSES, 10_000L,
        HwEvent.CACHE_REFERENCES, 4_000L, HwEvent.LLC_LOAD_MISSES, 1_000L, HwEvent.DTLB_LOAD_MISSES, 500L,
        HwEvent.BRANCH_MISSES, 2_000L, HwEvent.CYCLES, 5L)), profile("Intel(R) Xeon(R) Gold 6338", true, BRANCH));
    assertEquals(List.of(Component.L2_HIT, Component.LLC_HIT, Component.MEMORY, Component.DTLB, Component.BRANCH),
        b.stalls().stream().map(Stall::component).toList());
    assertEquals(6_000, term(b, Component.L2_HIT).events());
    assertEquals(3_000, term(b, Component.LLC_HIT).events());
    assertEquals(1_000, term(b, Component.MEMORY).events());
    assertTrue(b.stalls().stream().noneMatch(Stall::lowerBound));
    double memory = 6_000 * L2 + 3_000 * L3 + 1_000 * T1 + 500 * TLB; // 24,000 + 36,000 + 100,000 + 4,000
    assertEquals(164_000, memory);
    assertEquals(memory, b.memoryStallNanos(), 1e-9);
    assertEquals(6_000, b.branchStallNanos(), 1e-9);
    assertEquals(1_000_000 - 170_000, b.residualNanos(), 1e-9);
    assertTrue(b.notes().isEmpty(), b.notes().toString());
    String table = b.format();
    assertTrue(table.contains("LLC miss served by memory") && table.contains("1,000") && table.contains("10.0%"), table);
    assertTrue(table.contains("T_C + T_R - T_OVL (rest)") && table.contains("83.0%"), table);
  }

  @Test
  void amdZenHasL2MissesButNoLlcCounterSoTheLlcTermIsALowerBound() {
    StallBreakdown b = StallBreakdown.of(reading(1_000_000, Map.of(HwEvent.L1_DCACHE_LOAD_MISSES, 10_000L,
        HwEvent.CACHE_MISSES, 4_000L, HwEvent.CACHE_REFERENCES, 12_000L, HwEvent.BRANCH_MISSES, 100L)),
        profile("AMD EPYC 9B45", true, BRANCH));
    assertEquals(6_000, term(b, Component.L2_HIT).events());
    assertFalse(term(b, Component.L2_HIT).lowerBound());
    Stall llc = term(b, Component.LLC_HIT);
    assertEquals(4_000, llc.events());
    assertTrue(llc.lowerBound());
    assertEquals(null, term(b, Component.MEMORY));
    assertEquals(6_000 * L2 + 4_000 * L3, b.memoryStallNanos(), 1e-9);
    assertTrue(b.notes().stream().anyMatch(n -> n.contains("AMD Zen has no LLC-load-misses")), b.notes().toString());
    assertTrue(b.notes().stream().anyMatch(n -> n.contains("dTLB-load-misses not counted")), b.notes().toString());
    assertTrue(b.format().contains("(at least)"), b.format());
  }

  @Test
  void intelWithOnlyCacheMissesChargesL1MissesAboveTheLlcAsL2Hits() {
    StallBreakdown b = StallBreakdown.of(reading(1_000, Map.of(HwEvent.L1_DCACHE_LOAD_MISSES, 10_000L,
        HwEvent.CACHE_MISSES, 1_000L)), profile("Intel(R) Core(TM) i7", true, BRANCH));
    assertEquals(9_000, term(b, Component.L2_HIT).events());
    assertTrue(term(b, Component.L2_HIT).lowerBound());
    assertEquals(1_000, term(b, Component.MEMORY).events());
    assertEquals("cache-misses (Intel: LLC misses)", term(b, Component.MEMORY).counters());
    assertTrue(b.residualNanos() < 0);
    assertTrue(b.format().contains("the misses overlapped"), b.format());
  }

  @Test
  void withoutAThirdLevelL2MissesGoToMemory() {
    StallBreakdown b = StallBreakdown.of(reading(1_000_000, Map.of(HwEvent.L1_DCACHE_LOAD_MISSES, 10_000L,
        HwEvent.CACHE_MISSES, 4_000L)), profile("AMD Ryzen", false, BRANCH));
    assertEquals(List.of(Component.L2_HIT, Component.MEMORY), b.stalls().stream().map(Stall::component).toList());
    assertEquals(6_000, term(b, Component.L2_HIT).events());
    assertFalse(term(b, Component.L2_HIT).lowerBound());
    assertEquals(4_000 * T1 + 6_000 * L2, b.memoryStallNanos(), 1e-9);
  }

  @Test
  void disagreeingCountersClampToZeroAndMissingPenaltiesAreNamed() {
    StallBreakdown b = StallBreakdown.of(reading(1_000, Map.of(HwEvent.L1_DCACHE_LOAD_MISSES, 100L,
        HwEvent.CACHE_MISSES, 400L, HwEvent.BRANCH_MISSES, 7L)), profile("AMD EPYC", true, Double.NaN));
    assertEquals(0, term(b, Component.L2_HIT).events());
    assertTrue(b.notes().stream().anyMatch(n -> n.contains("counters disagree")), b.notes().toString());
    assertEquals(null, term(b, Component.BRANCH));
    assertEquals(0, b.branchStallNanos());
    assertTrue(b.notes().stream().anyMatch(n -> n.contains("no branch-miss penalty")), b.notes().toString());
  }

  @Test
  void anUnavailableReadingSaysSoInOneLine() {
    String line = StallBreakdown.describe(new CounterReading.Unavailable("perf_event_open failed with errno 2"),
        profile("AMD EPYC", true, BRANCH));
    assertEquals("stall breakdown: unavailable, no hardware counters (perf_event_open failed with errno 2)", line);
    String table = StallBreakdown.describe(reading(10, Map.of(HwEvent.CYCLES, 1L)), profile("x", true, BRANCH));
    assertTrue(table.startsWith("stall breakdown (seed 003") && table.contains("no T_B term"), table);
  }

  @Property(tries = 200)
  void fullInformationTelescopesAndMissingCountersOnlyLowerTheMemoryStalls(
      @ForAll @LongRange(max = 1_000_000_000L) long llc, @ForAll @LongRange(max = 1_000_000_000L) long l2Extra,
      @ForAll @LongRange(max = 1_000_000_000L) long l1Extra, @ForAll @LongRange(max = 1_000_000L) long tlb,
      @ForAll @LongRange(max = 1_000_000L) long branches, @ForAll boolean intel, @ForAll boolean withL2Counter,
      @ForAll boolean withLlcCounter, @ForAll @LongRange(max = Long.MAX_VALUE / 4) long wall) {
    long l2 = llc + l2Extra;
    long l1 = l2 + l1Extra;
    MachineProfile profile = profile(intel ? "Intel(R) Xeon(R)" : "AMD EPYC", true, BRANCH);
    Map<HwEvent, Long> full = new EnumMap<>(Map.of(HwEvent.L1_DCACHE_LOAD_MISSES, l1, HwEvent.LLC_LOAD_MISSES, llc,
        HwEvent.DTLB_LOAD_MISSES, tlb, HwEvent.BRANCH_MISSES, branches));
    full.put(intel ? HwEvent.CACHE_REFERENCES : HwEvent.CACHE_MISSES, l2);
    StallBreakdown complete = StallBreakdown.of(reading(wall, full), profile);
    double reference = l1 * L2 + l2 * (L3 - L2) + llc * (T1 - L3) + tlb * TLB;
    assertEquals(reference, complete.memoryStallNanos(), reference * 1e-12);
    assertEquals(branches * BRANCH, complete.branchStallNanos(), 1e-9);
    assertEquals(wall - reference - branches * BRANCH, complete.residualNanos(), Math.max(1, wall * 1e-12));
    assertTrue(complete.stalls().stream().noneMatch(Stall::lowerBound));

    Map<HwEvent, Long> partial = new EnumMap<>(full);
    if (!withL2Counter) {
      partial.remove(intel ? HwEvent.CACHE_REFERENCES : HwEvent.CACHE_MISSES);
    }
    if (!withLlcCounter) {
      partial.remove(HwEvent.LLC_LOAD_MISSES);
    }
    StallBreakdown less = StallBreakdown.of(reading(wall, partial), profile);
    assertTrue(less.memoryStallNanos() <= complete.memoryStallNanos() * (1 + 1e-12),
        less.format() + " vs " + complete.format());
    boolean approximate = !withL2Counter || !withLlcCounter;
    assertEquals(approximate, less.stalls().stream().anyMatch(Stall::lowerBound), less.format());
    assertEquals(approximate, !less.notes().isEmpty(), less.notes().toString());
  }
}
