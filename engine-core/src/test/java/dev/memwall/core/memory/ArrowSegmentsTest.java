package dev.memwall.core.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link ArrowSegments}: Arrow buffers seen as bounds- and lifetime-checked segments. */
@ExtendWith(LeakCheck.class)
class ArrowSegmentsTest {
  @Test
  void ffmBufferIsASliceOfItsAllocationAndDiesWithTheVector(EngineMemory memory) {
    BigIntVector vector = new BigIntVector("v", memory.arrow());
    vector.allocateNew(1000);
    for (int i = 0; i < 1000; i++) {
      vector.set(i, i * 3L - 500);
    }
    vector.setValueCount(1000);
    ArrowBuf data = vector.getDataBuffer();
    MemorySegment segment = ArrowSegments.of(data);
    assertEquals(data.memoryAddress(), segment.address());
    assertEquals(data.capacity(), segment.byteSize());
    for (int i = 0; i < 1000; i++) {
      assertEquals(i * 3L - 500, segment.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i));
    }
    assertThrows(IndexOutOfBoundsException.class, () -> segment.get(ValueLayout.JAVA_BYTE, segment.byteSize()));
    vector.close();
    assertThrows(IllegalStateException.class, () -> segment.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, 0));
  }

  @Test
  void slicedBufferMapsToTheSameBytes(EngineMemory memory) {
    try (BigIntVector vector = new BigIntVector("v", memory.arrow())) {
      vector.allocateNew(16);
      vector.set(5, 55L);
      ArrowBuf slice = vector.getDataBuffer().slice(5 * 8, 16);
      MemorySegment segment = ArrowSegments.of(slice);
      assertEquals(16, segment.byteSize());
      assertEquals(55L, segment.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }
  }

  @Test
  void emptyBufferIsTheNullSegment(EngineMemory memory) {
    try (BigIntVector vector = new BigIntVector("v", memory.arrow())) {
      assertEquals(0, ArrowSegments.of(vector.getDataBuffer()).byteSize());
    }
  }

  @Test
  void registeredRegionResolvesToALifetimeCheckedSlice(EngineMemory memory) {
    Arena arena = Arena.ofShared();
    MemorySegment region = arena.allocate(4096, 64);
    region.set(ValueLayout.JAVA_INT, 128, 77);
    ArrowSegments.register(region);
    try {
      ArrowBuf foreign = new ArrowBuf(org.apache.arrow.memory.ReferenceManager.NO_OP, null, 256,
          region.address() + 128);
      MemorySegment segment = ArrowSegments.of(foreign);
      assertEquals(256, segment.byteSize());
      assertEquals(77, segment.get(ValueLayout.JAVA_INT, 0));
      arena.close();
      assertThrows(IllegalStateException.class, () -> segment.get(ValueLayout.JAVA_INT, 0));
    } finally {
      ArrowSegments.unregister(region);
      if (region.scope().isAlive()) {
        arena.close();
      }
    }
    assertTrue(memory.allocatedBytes() == 0);
  }
}
