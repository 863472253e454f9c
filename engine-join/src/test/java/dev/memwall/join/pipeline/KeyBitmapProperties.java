package dev.memwall.join.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** {@link KeyBitmap} against a {@link HashSet}, with ranges at the limits of {@code long}. */
@AddLifecycleHook(PropertyLeakCheck.class)
class KeyBitmapProperties {
  private static final long[] ANCHORS = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 5_000, Long.MAX_VALUE};

  /**
   * Keys drawn from a range of up to 5,000 values anchored anywhere, including at both ends of
   * {@code long}; probes inside the range, just outside it, and at the limits, in any order.
   */
  @Property(tries = 300)
  void selectKeepsExactlyTheAddedKeys(@ForAll long seed, @ForAll @IntRange(min = 0, max = 5_000) int span,
      @ForAll @IntRange(min = 0, max = 6) int anchor, @ForAll @IntRange(min = 1, max = 2_000) int added,
      @ForAll @IntRange(min = 0, max = 3_000) int probed, EngineMemory memory) {
    Random random = new Random(seed);
    long min = Math.min(ANCHORS[anchor], Long.MAX_VALUE - span);
    long max = min + span;
    Set<Long> keys = new HashSet<>(List.of(min, max));
    for (int i = 0; i < added; i++) {
      keys.add(min + random.nextInt(span + 1));
    }
    long[] probes = new long[probed + 6];
    for (int i = 0; i < probed; i++) {
      probes[i] = min + random.nextInt(span + 201) - 100; // wraps past the limits: still a probe
    }
    long[] edges = {Long.MIN_VALUE, Long.MAX_VALUE, min - 1, max + 1, min, max};
    System.arraycopy(edges, 0, probes, probed, edges.length);
    int[] positions = new int[probes.length];
    List<Integer> expected = new ArrayList<>();
    int n = 0;
    for (int k = 0; k < probes.length; k++) {
      if (random.nextInt(4) != 0) { // a selection with gaps, as after a filter
        positions[n++] = k;
        if (keys.contains(probes[k])) {
          expected.add(k);
        }
      }
    }
    try (KeyBitmap bitmap = KeyBitmap.create(memory, min, max)) {
      keys.forEach(bitmap::add);
      int kept = bitmap.select(probes, positions, n);
      List<Integer> actual = new ArrayList<>();
      for (int i = 0; i < kept; i++) {
        actual.add(positions[i]);
      }
      assertEquals(expected, actual);
      int[] all = new int[probes.length];
      int keptOfAll = bitmap.selectAll(probes, probes.length, all);
      List<Integer> expectedOfAll = new ArrayList<>();
      for (int k = 0; k < probes.length; k++) {
        if (keys.contains(probes[k])) {
          expectedOfAll.add(k);
        }
      }
      assertEquals(expectedOfAll, java.util.Arrays.stream(all, 0, keptOfAll).boxed().toList(), "every position selected");
      assertThrows(IllegalArgumentException.class, () -> bitmap.add(max == Long.MAX_VALUE ? min - 1 : max + 1));
    }
  }

  @Property(tries = 50)
  void rangesOfMoreBitsThanAnArrayHoldsHaveNoBitmap(@ForAll long min, @ForAll long max) {
    long bytes = KeyBitmap.bytesFor(min, max);
    boolean representable = max >= min && max - min >= 0 && (max - min) / 64 < Integer.MAX_VALUE - 8;
    assertEquals(representable, bytes > 0, min + ".." + max);
    if (representable) {
      assertEquals(((max - min) / 64 + 1) * 8, bytes);
    }
  }

  @Example
  void theBitsAreChargedToTheBudgetUntilClosedAndABudgetTooSmallRefusesThem() {
    long bytes = KeyBitmap.bytesFor(0, 64 * 1000 - 1);
    assertEquals(8_000, bytes);
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("bitmap", bytes))) {
      KeyBitmap bitmap = KeyBitmap.create(memory, 0, 64 * 1000 - 1);
      assertEquals(bytes, memory.allocatedBytes());
      assertThrows(BudgetExceededException.class, () -> KeyBitmap.create(memory, 0, 63));
      bitmap.close();
      bitmap.close(); // a second close returns nothing twice
      assertEquals(0, memory.allocatedBytes());
    }
  }
}
