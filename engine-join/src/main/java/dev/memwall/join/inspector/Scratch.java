package dev.memwall.join.inspector;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;

/**
 * One worker's re-partitioning buffers for enhanced cache partitioning ({@link CachePartitioning}):
 * a memory partition's build and probe records and hash codes copied into cache-sized
 * sub-partitions, and each copied probe tuple's position in the probe partition (its matched flag).
 * It exists so that a worker allocates once for all the partitions it joins rather than once per
 * partition: the buffer grows to the largest partition it has been asked for and is then reused.
 *
 * <p>Ownership: holds one off-heap buffer charged to the run's {@link EngineMemory}, replaced when
 * it grows and freed by {@link #close}; the segments {@link #ensure} lays out are slices of it and
 * are invalid after the next {@code ensure} or {@code close}. Thread safety: one worker thread.
 * Sizes are the caller's (counts of tuples already partitioned); nothing is checked.
 */
final class Scratch implements AutoCloseable {
  private final EngineMemory memory;
  private OffHeapBuffer buffer;
  MemorySegment buildRecords;
  MemorySegment buildCodes;
  MemorySegment probeRecords;
  MemorySegment probeCodes;
  MemorySegment probeOrigin;

  Scratch(EngineMemory memory) {
    this.memory = memory;
  }

  /** Lays out room for {@code builds} build and {@code probes} probe tuples of {@code recordBytes} bytes. */
  void ensure(int builds, int probes, int recordBytes) {
    long b = (long) builds * recordBytes;
    long bc = (long) builds * Integer.BYTES;
    long p = (long) probes * recordBytes;
    long pc = (long) probes * Integer.BYTES;
    long bytes = b + bc + p + 2 * pc;
    if (buffer == null || buffer.byteSize() < bytes) {
      close();
      buffer = memory.allocate(bytes + bytes / 4);
    }
    MemorySegment s = buffer.segment();
    buildRecords = s.asSlice(0, b);
    probeRecords = s.asSlice(b, p);
    buildCodes = s.asSlice(b + p, bc);
    probeCodes = s.asSlice(b + p + bc, pc);
    probeOrigin = s.asSlice(b + p + bc + pc, pc);
  }

  @Override
  public void close() {
    if (buffer != null) {
      buffer.close();
      buffer = null;
    }
  }
}
