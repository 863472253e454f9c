package dev.memwall.core.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.lang.foreign.MemorySegment;
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
class PackedRadixClusterProperties {
  private static final int[] LIMITS = {Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1, 1};

  @Property(tries = 200)
  void clusteringIsAStableOrderedPermutationOnTheTopHashBits(@ForAll @IntRange(min = 0, max = 3000) int count,
      @ForAll @IntRange(min = 0, max = 12) int bits, @ForAll @IntRange(min = 1, max = 4) int passes,
      @ForAll @IntRange(min = 1, max = 3) int threads, @ForAll @IntRange(min = 1, max = 1000) int distinctKeys,
      @ForAll long seed, EngineMemory memory) {
    RadixPlan plan = RadixPlan.even(bits, bits == 0 ? 0 : Math.min(passes, bits));
    Random random = new Random(seed);
    long bytes = Math.max(1, count) * PackedTuples.BYTES_PER_TUPLE;
    try (OffHeapBuffer input = memory.allocate(bytes);
        OffHeapBuffer scratch = memory.allocate(bytes);
        OffHeapBuffer offsets = memory.allocate(RadixCluster.offsetsBytes(plan))) {
      List<Long> expected = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int key = random.nextInt(10) == 0 ? LIMITS[random.nextInt(LIMITS.length)] : random.nextInt(distinctKeys) << 3;
        long tuple = PackedTuples.pack(key, i);
        input.segment().setAtIndex(PackedTuples.WORD, i, tuple);
        expected.add(tuple);
      }
      MemorySegment out = PackedRadixCluster.cluster(PackedSource.of(input.segment(), count), scratch.segment(),
          plan.passes() > 1 ? input.segment() : null, plan, threads, offsets.segment());
      int clusters = plan.clusters();
      MemorySegment o = offsets.segment();
      assertEquals(0, o.getAtIndex(ValueLayout.JAVA_INT, 0));
      assertEquals(count, o.getAtIndex(ValueLayout.JAVA_INT, clusters));
      List<Long> actual = new ArrayList<>();
      for (int c = 0; c < clusters; c++) {
        int from = o.getAtIndex(ValueLayout.JAVA_INT, c);
        int to = o.getAtIndex(ValueLayout.JAVA_INT, c + 1);
        assertTrue(from <= to, "boundaries must not decrease");
        int previousRow = -1;
        for (int i = from; i < to; i++) {
          long tuple = out.getAtIndex(PackedTuples.WORD, i);
          long top = bits == 0 ? 0 : PackedTuples.hash(PackedTuples.key(tuple)) >>> (64 - bits);
          assertEquals(c, top, "tuple " + i + " in cluster " + c);
          assertTrue(PackedTuples.row(tuple) > previousRow, "a cluster keeps the input order");
          previousRow = PackedTuples.row(tuple);
          actual.add(tuple);
        }
      }
      expected.sort(null);
      actual.sort(null);
      assertEquals(expected, actual, "clustering must be a permutation of the input tuples");
    }
  }

  @Example
  void tuplesKeepKeysAtTheTypeLimitsAndTheHashIsABijection() {
    for (int key : LIMITS) {
      long tuple = PackedTuples.pack(key, Integer.MAX_VALUE);
      assertEquals(key, PackedTuples.key(tuple));
      assertEquals(Integer.MAX_VALUE, PackedTuples.row(tuple));
    }
    assertTrue(PackedTuples.hash(Integer.MIN_VALUE) != PackedTuples.hash(Integer.MAX_VALUE));
    assertEquals(0, PackedTuples.hash(0));
    assertEquals(PackedTuples.hash(-1) >>> 60, PackedTuples.bucketBits(PackedTuples.hash(-1), 0, 4));
  }

  @Example
  void tooSmallBuffersAreRefusedBeforeAnyTupleMoves(EngineMemory memory) {
    RadixPlan onePass = RadixPlan.even(4, 1);
    RadixPlan twoPasses = RadixPlan.even(4, 2);
    try (OffHeapBuffer input = memory.allocate(16);
        OffHeapBuffer small = memory.allocate(8);
        OffHeapBuffer offsets = memory.allocate(RadixCluster.offsetsBytes(onePass))) {
      input.segment().setAtIndex(PackedTuples.WORD, 0, PackedTuples.pack(7, 0));
      input.segment().setAtIndex(PackedTuples.WORD, 1, PackedTuples.pack(8, 1));
      PackedSource two = PackedSource.of(input.segment(), 2);
      assertThrows(IllegalArgumentException.class,
          () -> PackedRadixCluster.cluster(two, small.segment(), null, onePass, 1, offsets.segment()));
      assertEquals(0, small.segment().get(PackedTuples.WORD, 0), "nothing moved");
      assertThrows(IllegalArgumentException.class,
          () -> PackedRadixCluster.cluster(two, input.segment(), small.segment(), twoPasses, 1, offsets.segment()));
      assertThrows(IllegalArgumentException.class,
          () -> PackedRadixCluster.cluster(two, input.segment(), null, twoPasses, 1, offsets.segment()));
      assertThrows(IllegalArgumentException.class,
          () -> PackedRadixCluster.cluster(two, small.segment(), null, onePass, 0, offsets.segment()));
    }
  }
}
