package dev.memwall.join.inspector;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One inspecting thread's growing list of candidates, each a {@code long}: the sub-partition in the
 * high 32 bits, the probe tuple's position in the low 32 (see {@link Inspection}). It exists because
 * the number of candidates is known only once the probe side has been inspected (a tuple has one per
 * filter that admits it), and the counting sort ({@link SortedCandidates}) reads them back in order.
 *
 * <p>Ownership: holds one off-heap buffer charged to the run's {@link EngineMemory}, doubled (copied
 * into a new one, the old freed) when full, and freed by {@link #close}. Thread safety: one thread
 * adds; others may read only after that thread's work has been joined. Indices are not checked
 * beyond the segment's own bounds check.
 */
final class CandidateList implements AutoCloseable {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

  private final EngineMemory memory;
  private OffHeapBuffer buffer;
  private MemorySegment segment;
  private long size;

  /** A list with room for {@code capacity} candidates (at least 16) before it first grows. */
  CandidateList(EngineMemory memory, long capacity) {
    this.memory = memory;
    this.buffer = memory.allocate(Math.max(16, capacity) * Long.BYTES);
    this.segment = buffer.segment();
  }

  void add(long entry) {
    if (size * Long.BYTES == segment.byteSize()) {
      OffHeapBuffer grown = memory.allocate(segment.byteSize() * 2);
      grown.segment().copyFrom(segment);
      buffer.close();
      buffer = grown;
      segment = grown.segment();
    }
    segment.setAtIndex(LONG, size++, entry);
  }

  long size() {
    return size;
  }

  long get(long i) {
    return segment.getAtIndex(LONG, i);
  }

  @Override
  public void close() {
    buffer.close();
  }
}
