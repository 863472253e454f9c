package dev.memwall.core.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** The calibrator's ring is one cycle through every node, so a chase touches the whole working set. */
@AddLifecycleHook(PropertyLeakCheck.class)
class MemoryProbeProperties {

  @Property(tries = 100)
  void ringIsASingleCycleThroughEveryNode(@ForAll @IntRange(min = 2, max = 5000) int nodes,
      @ForAll @IntRange(min = 0, max = 2) int strideShift, @ForAll long seed, EngineMemory memory) {
    int stride = 64 << strideShift;
    try (OffHeapBuffer buffer = memory.allocate((long) nodes * stride + 100)) {
      MemorySegment ring = buffer.segment();
      long[] starts = MemoryProbe.buildRing(ring, (long) nodes * stride, stride, seed);
      Set<Long> seen = new HashSet<>();
      long at = 0;
      for (int i = 0; i < nodes; i++) {
        assertEquals(0, at % stride, "nodes are stride-aligned");
        assertTrue(seen.add(at), "node visited twice before the cycle closed");
        at = ring.get(ValueLayout.JAVA_LONG, at);
      }
      assertEquals(0, at, "the cycle closes after exactly every node");
      assertEquals(0, MemoryProbe.chase(ring, 0, nodes));
      for (long start : starts) {
        assertTrue(seen.contains(start), "chain starts lie on the ring");
      }
      assertEquals(MemoryProbe.CHAINS, starts.length);
    }
  }

  @Property(tries = 100)
  void pairRingVisitsEveryBlockTwiceDistanceApart(@ForAll @IntRange(min = 2, max = 3000) int blocks,
      @ForAll @IntRange(min = 0, max = 5) int distanceShift, @ForAll long seed, EngineMemory memory) {
    int blockBytes = 512;
    int distance = Long.BYTES << distanceShift;
    try (OffHeapBuffer buffer = memory.allocate((long) blocks * blockBytes)) {
      MemorySegment ring = buffer.segment();
      long first = MemoryProbe.buildPairRing(ring, blocks, blockBytes, distance, seed)[0];
      Set<Long> seen = new HashSet<>();
      long at = first;
      for (int i = 0; i < blocks; i++) {
        assertEquals(blockBytes - Long.BYTES, at % blockBytes, "each block is entered at its last long");
        assertTrue(seen.add(at / blockBytes), "block visited twice before the cycle closed");
        long second = ring.get(ValueLayout.JAVA_LONG, at);
        assertEquals(at - distance, second, "the second stop lies distance bytes before the first");
        at = ring.get(ValueLayout.JAVA_LONG, second);
      }
      assertEquals(first, at, "the cycle closes after exactly every block");
      assertEquals(first, MemoryProbe.chase(ring, first, 2L * blocks));
    }
  }
}
