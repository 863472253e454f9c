package dev.memwall.hw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** The group read format, decoded, differenced and scaled. */
class GroupReadoutTest {

  private static MemorySegment buffer(Arena arena, long... words) {
    MemorySegment segment = arena.allocate(8L * words.length, 8);
    MemorySegment.copy(words, 0, segment, ValueLayout.JAVA_LONG, 0, words.length);
    return segment;
  }

  @Test
  void decodesNrTimesAndValuesInGroupOrder() {
    try (Arena arena = Arena.ofConfined()) {
      GroupReadout.Snapshot s = GroupReadout.parse(buffer(arena, 3, 1_000, 900, 11, 22, 33), 48, 3);
      assertEquals(1_000, s.enabledNanos());
      assertEquals(900, s.runningNanos());
      assertArrayEquals(new long[] {11, 22, 33}, s.values());
      assertThrows(IllegalStateException.class, () -> GroupReadout.parse(buffer(arena, 2, 1, 1, 1, 1, 0), 48, 3),
          "nr must be the group's size");
      assertThrows(IllegalStateException.class, () -> GroupReadout.parse(buffer(arena, 3, 1, 1, 1, 1, 1), 40, 3),
          "a short read");
    }
  }

  @Test
  void aGroupThatNeverRanAndACounterThatWentBackwardsAreNotCounted() {
    List<HwEvent> members = List.of(HwEvent.CYCLES, HwEvent.INSTRUCTIONS);
    Map<HwEvent, CounterReading.EventCount> counts = new EnumMap<>(HwEvent.class);
    Map<HwEvent, String> notCounted = new EnumMap<>(HwEvent.class);
    GroupReadout.collect(members, new GroupReadout.Snapshot(100, 50, new long[] {0, 0}),
        new GroupReadout.Snapshot(300, 50, new long[] {0, 0}), counts, notCounted);
    assertTrue(counts.isEmpty());
    assertEquals(members, List.copyOf(notCounted.keySet()));

    notCounted.clear();
    GroupReadout.collect(members, new GroupReadout.Snapshot(0, 0, new long[] {10, 10}),
        new GroupReadout.Snapshot(100, 100, new long[] {15, 5}), counts, notCounted);
    assertEquals(5, counts.get(HwEvent.CYCLES).raw());
    assertTrue(notCounted.get(HwEvent.INSTRUCTIONS).contains("backwards"));
  }

  @Property(tries = 200)
  void scalingIsRawTimesEnabledOverRunning(@ForAll @LongRange(max = 1L << 40) long raw,
      @ForAll @LongRange(min = 1, max = 1L << 40) long running, @ForAll @LongRange(max = 1L << 40) long extra,
      @ForAll @LongRange(max = 1L << 40) long before) {
    Map<HwEvent, CounterReading.EventCount> counts = new EnumMap<>(HwEvent.class);
    GroupReadout.collect(List.of(HwEvent.BRANCH_MISSES), new GroupReadout.Snapshot(before, before, new long[] {before}),
        new GroupReadout.Snapshot(before + running + extra, before + running, new long[] {before + raw}), counts,
        new EnumMap<>(HwEvent.class));
    CounterReading.EventCount count = counts.get(HwEvent.BRANCH_MISSES);
    assertEquals(raw, count.raw());
    double expected = Math.min((double) raw * (running + extra) / running, (double) Long.MAX_VALUE);
    assertEquals(expected, count.scaled(), Math.max(0.5, expected * 1e-12));
    assertEquals(extra > 0, count.isScaled());
  }
}
