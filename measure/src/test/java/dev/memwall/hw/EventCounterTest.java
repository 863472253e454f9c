package dev.memwall.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The counting logic above the system calls, on a {@link FakePmu}: grouping, per-event support,
 * fatal errors, the ioctl protocol, the read format, multiplexing, and the handle's lifecycle. The
 * same code runs against the real kernel where counters exist ({@link RealCountersTest}).
 */
class EventCounterTest {

  private static Map<HwEvent, Long> occurrences(long base) {
    Map<HwEvent, Long> map = new EnumMap<>(HwEvent.class);
    for (HwEvent e : HwEvent.values()) {
      map.put(e, base * (e.ordinal() + 1));
    }
    return map;
  }

  private static CounterReading countWith(FakePmu pmu, Set<HwEvent> events, boolean userOnly, long nanos,
      Map<HwEvent, Long> occurrences) {
    try (EventCounter counter = EventCounter.open(events, pmu, Arena.ofConfined(), userOnly)) {
      pmu.tick(1_000, occurrences); // before the region: must not be counted
      CountingRegion region = counter.start();
      try (region) {
        pmu.tick(nanos, occurrences);
      }
      pmu.tick(1_000, occurrences); // after it: must not be counted either
      return region.reading();
    }
  }

  @Test
  void allEventsCountExactlyTheRegionInGroupsOfFour() {
    FakePmu pmu = new FakePmu();
    List<List<HwEvent>> groups = new ArrayList<>();
    CounterReading reading;
    try (EventCounter counter = EventCounter.open(HwEvent.all(), pmu, Arena.ofConfined(), true)) {
      groups.addAll(pmu.groups());
      pmu.tick(500, occurrences(7));
      CountingRegion region = counter.start();
      try (region) {
        pmu.tick(2_000, occurrences(10));
      }
      reading = region.reading();
      // a second region starts from zero again (RESET zeroes values, times are differenced)
      CountingRegion second = counter.start();
      try (second) {
        pmu.tick(300, occurrences(1));
      }
      CounterReading.Available again = assertInstanceOf(CounterReading.Available.class, second.reading());
      assertEquals(4L, again.count(HwEvent.CACHE_MISSES).orElseThrow());
      assertEquals(300, again.counts().get(HwEvent.CYCLES).enabledNanos());
    }
    assertEquals(List.of(List.of(HwEvent.CYCLES, HwEvent.INSTRUCTIONS, HwEvent.CACHE_REFERENCES, HwEvent.CACHE_MISSES),
        List.of(HwEvent.LLC_LOAD_MISSES, HwEvent.L1_DCACHE_LOAD_MISSES, HwEvent.DTLB_LOAD_MISSES,
            HwEvent.BRANCH_MISSES)), groups);
    CounterReading.Available available = assertInstanceOf(CounterReading.Available.class, reading);
    for (HwEvent e : HwEvent.values()) {
      assertEquals(10L * (e.ordinal() + 1), available.count(e).orElseThrow(), e.perfName());
      CounterReading.EventCount count = available.counts().get(e);
      assertEquals(2_000, count.enabledNanos());
      assertEquals(2_000, count.runningNanos());
      assertFalse(count.isScaled());
    }
    assertTrue(available.notCounted().isEmpty());
    assertTrue(available.userOnly());
    assertEquals(0, pmu.openCount(), "every descriptor is closed");
    assertEquals(8, pmu.openedCount());
    assertEquals(1, available.describe().lines().count());
    assertTrue(available.describe().contains("LLC-load-misses 50"), available.describe());
  }

  @Test
  void theIoctlProtocolIsResetEnableDisableOnEachLeaderWithTheGroupFlag() {
    FakePmu pmu = new FakePmu();
    countWith(pmu, EnumSet.of(HwEvent.CYCLES, HwEvent.INSTRUCTIONS), true, 10, occurrences(1));
    List<String> ioctls = pmu.calls.stream().filter(c -> c.startsWith("ioctl")).toList();
    assertEquals(List.of("ioctl 2403 cycles", "ioctl 2400 cycles", "ioctl 2401 cycles"), ioctls);
    assertEquals(List.of("open cycles leader", "open instructions in 100"),
        pmu.calls.stream().filter(c -> c.startsWith("open")).toList());
  }

  @Test
  void eventsOpenDisabledWithoutHypervisorAndWithoutKernelOnlyWhenRequired() {
    for (boolean userOnly : new boolean[] {true, false}) {
      FakePmu pmu = new FakePmu();
      try (EventCounter counter = EventCounter.open(HwEvent.all(), pmu, Arena.ofConfined(), userOnly)) {
        for (long flags : pmu.flags().values()) {
          assertEquals(PerfEventAttr.FLAG_DISABLED | PerfEventAttr.FLAG_EXCLUDE_HV
              | (userOnly ? PerfEventAttr.FLAG_EXCLUDE_KERNEL : 0), flags, "no inherit, nothing else");
        }
        assertTrue(counter.isAvailable());
      }
    }
  }

  @Test
  void eventsThePmuLacksAreReportedPerEventAndAnotherLeaderIsChosen() {
    FakePmu pmu = new FakePmu();
    pmu.openErrno.put(HwEvent.CYCLES, 95); // EOPNOTSUPP on the would-be leader
    pmu.openErrno.put(HwEvent.LLC_LOAD_MISSES, 2); // ENOENT, as on AMD Zen
    CounterReading reading = countWith(pmu, HwEvent.all(), true, 1_000, occurrences(3));
    CounterReading.Available available = assertInstanceOf(CounterReading.Available.class, reading);
    assertEquals(Set.of(HwEvent.CYCLES, HwEvent.LLC_LOAD_MISSES), available.notCounted().keySet());
    assertTrue(available.notCounted().get(HwEvent.LLC_LOAD_MISSES).contains("ENOENT"));
    assertTrue(available.notCounted().get(HwEvent.CYCLES).contains("EOPNOTSUPP"));
    assertTrue(available.count(HwEvent.LLC_LOAD_MISSES).isEmpty(), "never a zero for an event not counted");
    assertEquals(6, available.counts().size());
    assertEquals(6L, available.count(HwEvent.INSTRUCTIONS).orElseThrow());
    assertTrue(available.describe().contains("; not counted: cycles (not supported by this PMU: EOPNOTSUPP), "
        + "LLC-load-misses (not supported by this PMU: ENOENT)"), available.describe());
    assertTrue(pmu.calls.contains("open instructions leader"), pmu.calls.toString());
    assertEquals(0, pmu.openCount());
  }

  @Test
  void aSiblingThatDoesNotFitStartsANewGroup() {
    FakePmu pmu = new FakePmu();
    pmu.groupCapacity = 3;
    List<List<HwEvent>> groups;
    try (EventCounter counter = EventCounter.open(HwEvent.all(), pmu, Arena.ofConfined(), true)) {
      groups = pmu.groups();
      assertTrue(counter.isAvailable());
    }
    assertEquals(List.of(3, 3, 2), groups.stream().map(List::size).toList());
    assertEquals(0, pmu.openCount());
  }

  @Test
  void aPermissionErrorMakesTheCounterUnavailableAndClosesWhatWasOpened() {
    FakePmu pmu = new FakePmu();
    pmu.openErrno.put(HwEvent.CACHE_MISSES, 13);
    CounterReading reading = countWith(pmu, HwEvent.all(), true, 1_000, occurrences(1));
    CounterReading.Unavailable unavailable = assertInstanceOf(CounterReading.Unavailable.class, reading);
    assertTrue(unavailable.reason().contains("cache-misses") && unavailable.reason().contains("EACCES")
        && unavailable.reason().contains("perf_event_paranoid"), unavailable.reason());
    assertEquals(0, pmu.openCount());
    assertEquals(3, pmu.openedCount());
    assertTrue(pmu.calls.stream().noneMatch(c -> c.startsWith("ioctl")), "nothing enabled: " + pmu.calls);
  }

  @Test
  void whenNoEventIsSupportedTheReadingIsUnavailableNotZeros() {
    FakePmu pmu = new FakePmu();
    for (HwEvent e : HwEvent.values()) {
      pmu.openErrno.put(e, 2);
    }
    CounterReading reading = countWith(pmu, HwEvent.all(), true, 1_000, occurrences(1));
    CounterReading.Unavailable unavailable = assertInstanceOf(CounterReading.Unavailable.class, reading);
    assertTrue(unavailable.reason().startsWith("none of [cycles"), unavailable.reason());
    assertEquals(1, unavailable.describe().lines().count());
  }

  @Test
  void multiplexedGroupsAreScaledAndAGroupThatNeverRanIsNotCounted() {
    FakePmu pmu = new FakePmu();
    pmu.runningFraction.put(HwEvent.CYCLES, 0.25); // first group: a quarter of the time
    pmu.runningFraction.put(HwEvent.LLC_LOAD_MISSES, 0.0); // second group: never
    CounterReading reading = countWith(pmu, HwEvent.all(), true, 4_000, occurrences(100));
    CounterReading.Available available = assertInstanceOf(CounterReading.Available.class, reading);
    CounterReading.EventCount cycles = available.counts().get(HwEvent.CYCLES);
    assertEquals(25, cycles.raw());
    assertEquals(1_000, cycles.runningNanos());
    assertEquals(4_000, cycles.enabledNanos());
    assertEquals(100, cycles.scaled());
    assertTrue(cycles.isScaled());
    assertEquals(400, available.count(HwEvent.CACHE_MISSES).orElseThrow());
    assertEquals(EnumSet.of(HwEvent.LLC_LOAD_MISSES, HwEvent.L1_DCACHE_LOAD_MISSES, HwEvent.DTLB_LOAD_MISSES,
        HwEvent.BRANCH_MISSES), available.notCounted().keySet());
    assertTrue(available.notCounted().get(HwEvent.BRANCH_MISSES).contains("multiplexed out"));
    assertTrue(available.describe().contains("scaled, on the PMU 25% of the time"), available.describe());
  }

  @Test
  void aFailedReadGivesUnavailableWithTheErrno() {
    FakePmu pmu = new FakePmu();
    try (EventCounter counter = EventCounter.open(HwEvent.all(), pmu, Arena.ofConfined(), true)) {
      CountingRegion region = counter.start();
      pmu.readErrno = 9;
      region.close();
      assertEquals(new CounterReading.Unavailable("read of the counters failed: EBADF"), region.reading());
      pmu.readErrno = 0;
      pmu.ioctlErrno = 16;
      CountingRegion failed = counter.start();
      failed.close();
      assertEquals(new CounterReading.Unavailable("PERF_EVENT_IOC_RESET failed: EBUSY"), failed.reading());
    }
    assertEquals(0, pmu.openCount());
  }

  @Test
  void theHandleIsConfinedAndItsLifecycleChecked() throws Exception {
    FakePmu pmu = new FakePmu();
    EventCounter counter = EventCounter.open(EnumSet.of(HwEvent.CYCLES), pmu, Arena.ofConfined(), true);
    CompletableFuture<Throwable> elsewhere = new CompletableFuture<>();
    Thread.ofPlatform().start(() -> {
      try {
        counter.start();
        elsewhere.complete(null);
      } catch (Throwable e) {
        elsewhere.complete(e);
      }
    }).join();
    assertInstanceOf(WrongThreadException.class, elsewhere.get());

    CountingRegion region = counter.start();
    assertTrue(region.isOpen());
    assertThrows(IllegalStateException.class, region::reading, "no reading before close");
    assertThrows(IllegalStateException.class, counter::start, "one region at a time");
    pmu.tick(10, occurrences(1));
    counter.close(); // closes the open region too
    assertFalse(region.isOpen());
    assertInstanceOf(CounterReading.Available.class, region.reading());
    region.close();
    counter.close();
    assertThrows(IllegalStateException.class, counter::start, "closed");
    assertEquals(0, pmu.openCount());
  }

  @Test
  void badEventSetsAreRejectedBeforeAnySystemCall() {
    FakePmu pmu = new FakePmu();
    assertThrows(IllegalArgumentException.class, () -> EventCounter.open(Set.of(), pmu, Arena.ofConfined(), true));
    assertThrows(NullPointerException.class, () -> EventCounter.open(null, pmu, Arena.ofConfined(), true));
    assertThrows(IllegalArgumentException.class, () -> EventCounter.open(Set.of()));
    assertTrue(pmu.calls.isEmpty());
  }

  @Test
  void anUnavailableCounterStillGivesRegionsThatReadUnavailable() {
    try (EventCounter counter = EventCounter.unavailable(HwEvent.all(), "no PMU here")) {
      assertFalse(counter.isAvailable());
      assertEquals(HwEvent.all(), counter.events());
      for (int i = 0; i < 2; i++) {
        CountingRegion region = counter.start();
        try (region) {
          assertTrue(region.isOpen());
        }
        assertEquals(new CounterReading.Unavailable("no PMU here"), region.reading());
      }
    }
  }
}
