package dev.memwall.core.operator;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A growable off-heap array of longs, zero-initialized and charged to an {@link EngineMemory}'s
 * budget. Growing doubles the capacity, or grows to the index asked where that is more, and copies
 * (onto huge pages once it spans one).
 *
 * <p>Ownership: the creator closes it. Thread safety: none.
 */
final class OffHeapLongArray implements AutoCloseable {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

  private final EngineMemory memory;
  private OffHeapBuffer buffer;
  private MemorySegment slots;

  OffHeapLongArray(EngineMemory memory, long initialCapacity) {
    this.memory = memory;
    this.buffer = memory.allocate(Math.max(1, initialCapacity) * Long.BYTES);
    this.slots = buffer.segment();
  }

  long capacity() {
    return slots.byteSize() / Long.BYTES;
  }

  /** Makes index {@code index} addressable, growing (new slots zero) if needed. */
  void ensureCapacity(long index) {
    if (index < capacity()) {
      return;
    }
    long capacity = Math.max(capacity() * 2, index + 1); // a reservation: what is asked, not the next power of two
    OffHeapBuffer grown = memory.allocateUninitialized(capacity * Long.BYTES, Placement.HUGE_PAGES);
    MemorySegment.copy(slots, 0, grown.segment(), 0, slots.byteSize());
    grown.segment().asSlice(slots.byteSize()).fill((byte) 0);
    buffer.close();
    buffer = grown;
    slots = grown.segment();
  }

  /** The longs as one segment, for tight loops; valid until the next growth. */
  MemorySegment segment() {
    return slots;
  }

  long get(long index) {
    return slots.getAtIndex(LONG, index);
  }

  void set(long index, long value) {
    slots.setAtIndex(LONG, index, value);
  }

  @Override
  public void close() {
    buffer.close();
  }
}
