package dev.memwall.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * Over random event sets, PMUs lacking random events (with the errnos a PMU answers) and random
 * group capacities: every event asked for is either counted exactly or named as not counted, never
 * both, never a zero in its place; and every descriptor is closed.
 */
class EventCounterProperties {

  @Property(tries = 200)
  void everyEventIsCountedExactlyOrNamedAndNothingLeaks(@ForAll @Size(min = 1) Set<HwEvent> asked,
      @ForAll Set<HwEvent> lacking, @ForAll @IntRange(min = 1, max = 8) int capacity,
      @ForAll @LongRange(min = 1, max = 1_000_000) long nanos, @ForAll @LongRange(max = 1L << 40) long base,
      @ForAll @IntRange(min = 0, max = 2) int errnoChoice, @ForAll boolean userOnly) {
    FakePmu pmu = new FakePmu();
    pmu.groupCapacity = capacity;
    int errno = new int[] {2, 95, 22}[errnoChoice];
    lacking.forEach(e -> pmu.openErrno.put(e, errno));
    Map<HwEvent, Long> truth = new EnumMap<>(HwEvent.class);
    for (HwEvent e : HwEvent.values()) {
      truth.put(e, base + e.ordinal());
    }
    CounterReading reading;
    try (EventCounter counter = EventCounter.open(asked, pmu, Arena.ofConfined(), userOnly)) {
      assertEquals(EnumSet.copyOf(asked), counter.events());
      for (var group : pmu.groups()) {
        assertTrue(group.size() <= Math.min(capacity, EventCounter.MAX_GROUP_EVENTS), pmu.groups().toString());
      }
      pmu.tick(7, truth);
      CountingRegion region = counter.start();
      try (region) {
        pmu.tick(nanos, truth);
      }
      reading = region.reading();
    }
    assertEquals(0, pmu.openCount(), "descriptors left open");
    Set<HwEvent> supported = EnumSet.copyOf(asked);
    supported.removeAll(lacking);
    if (supported.isEmpty()) {
      CounterReading.Unavailable unavailable = assertInstanceOf(CounterReading.Unavailable.class, reading);
      assertTrue(unavailable.reason().startsWith("none of"), unavailable.reason());
      return;
    }
    CounterReading.Available available = assertInstanceOf(CounterReading.Available.class, reading);
    assertEquals(supported, available.counts().keySet());
    Set<HwEvent> missing = EnumSet.copyOf(asked);
    missing.retainAll(lacking);
    assertEquals(missing, available.notCounted().keySet());
    for (HwEvent e : supported) {
      assertEquals(truth.get(e), available.count(e).orElseThrow(), e.perfName());
      assertEquals(nanos, available.counts().get(e).enabledNanos());
    }
    assertEquals(userOnly, available.userOnly());
  }
}
