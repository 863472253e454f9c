package dev.memwall.join.algorithm;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.keys.KeyColumns;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The row ids of an extracted input's null-key rows, kept (only when asked) for the join types that
 * report a left row without a match: a null key never matches.
 *
 * <p>Ownership: closes its buffer. Thread safety: none.
 */
final class NullRows implements AutoCloseable {
  private final OffHeapBuffer buffer;
  private int count;

  private NullRows(OffHeapBuffer buffer) {
    this.buffer = buffer;
  }

  /** Bytes {@link #allocate} takes at most for an input with up to {@code nullBound} null keys. */
  static long bytesFor(long nullBound) {
    return Math.max(1, nullBound) * Integer.BYTES;
  }

  /** Room for every null-key row of {@code side} when {@code keep}; otherwise none, and nothing is kept. */
  static NullRows allocate(EngineMemory memory, KeyColumns side, boolean keep) {
    return new NullRows(keep && side.nullBound() > 0 ? memory.allocate(side.nullBound() * Integer.BYTES) : null);
  }

  /** Where an extraction writes the row ids, from index {@link #count()} on; null when they are not kept. */
  MemorySegment segment() {
    return buffer == null ? null : buffer.segment();
  }

  /** Row ids kept so far. */
  int count() {
    return count;
  }

  /** Records that an extraction wrote {@code rows} more row ids to {@link #segment()} (ignored when none are kept). */
  void added(int rows) {
    if (buffer != null) {
      count += rows;
    }
  }

  /** Emits every kept row as unmatched, if the join type reports those. */
  void emitUnmatched(JoinInput input, JoinOutput out) {
    if (input.type().reportsUnmatched()) {
      for (int i = 0; i < count; i++) {
        out.emit(buffer.segment().getAtIndex(ValueLayout.JAVA_INT, i), JoinIndex.NO_ROW);
      }
    }
  }

  @Override
  public void close() {
    if (buffer != null) {
      buffer.close();
    }
  }
}
