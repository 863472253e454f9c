package dev.memwall.core.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

@AddLifecycleHook(PropertyLeakCheck.class)
class RadixClusterProperties {

  @Property(tries = 150)
  void clusteringIsAnOrderedPermutationWithCorrectBoundaries(@ForAll @IntRange(min = 0, max = 3000) int count,
      @ForAll @IntRange(min = 0, max = 12) int bits, @ForAll @IntRange(min = 1, max = 4) int passes,
      @ForAll boolean writeCombining, @ForAll @IntRange(min = 1, max = 1000) int distinctKeys, @ForAll long seed,
      EngineMemory memory) {
    RadixPlan plan = RadixPlan.even(bits, Math.min(passes, Math.max(bits, 1)) * (bits == 0 ? 0 : 1));
    Random random = new Random(seed);
    try (HashedTuples input = HashedTuples.allocate(memory, count, Placement.DEFAULT);
        HashedTuples scratch = HashedTuples.allocate(memory, count, Placement.DEFAULT);
        OffHeapBuffer offsets = memory.allocate(RadixCluster.offsetsBytes(plan));
        OffHeapBuffer level = memory.allocate(RadixCluster.offsetsBytes(plan))) {
      List<Long> expected = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        long hash = random.nextInt(distinctKeys) * 0x9E3779B97F4A7C15L;
        input.set(i, hash, i);
        expected.add(hash * 31 + i);
      }
      HashedTuples out = RadixCluster.cluster(input, scratch, count, plan, writeCombining, offsets.segment(), level.segment());
      long mask = (1L << bits) - 1;
      List<Long> actual = new ArrayList<>();
      int clusters = 1 << bits;
      assertEquals(0, offsets.segment().getAtIndex(ValueLayout.JAVA_INT, 0));
      assertEquals(count, offsets.segment().getAtIndex(ValueLayout.JAVA_INT, clusters));
      for (int c = 0; c < clusters; c++) {
        int from = offsets.segment().getAtIndex(ValueLayout.JAVA_INT, c);
        int to = offsets.segment().getAtIndex(ValueLayout.JAVA_INT, c + 1);
        assertTrue(from <= to, "boundaries must not decrease");
        for (int i = from; i < to; i++) {
          assertEquals(c, out.hash(i) & mask, "tuple " + i + " in cluster " + c);
          actual.add(out.hash(i) * 31 + out.row(i));
        }
      }
      expected.sort(null);
      actual.sort(null);
      assertEquals(expected, actual, "clustering must be a permutation of the input tuples");
    }
  }

  @Example
  void evenSplitPutsTheOddBitsFirst() {
    RadixPlan plan = RadixPlan.even(14, 3);
    assertEquals(5, plan.bitsOfPass(0));
    assertEquals(5, plan.bitsOfPass(1));
    assertEquals(4, plan.bitsOfPass(2));
    assertEquals(2, RadixPlan.bounded(14, 12).passes());
    assertEquals(1, RadixPlan.bounded(12, 12).passes());
    assertEquals(0, RadixPlan.bounded(0, 12).passes());
  }

  @Example
  void badPlansAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> RadixPlan.even(4, 5));
    assertThrows(IllegalArgumentException.class, () -> RadixPlan.even(RadixPlan.MAX_BITS + 1, 2));
    assertThrows(IllegalArgumentException.class, () -> RadixPlan.of(0, 3));
    assertThrows(IllegalArgumentException.class, () -> RadixPlan.of(RadixPlan.MAX_BITS_PER_PASS + 1));
  }
}
