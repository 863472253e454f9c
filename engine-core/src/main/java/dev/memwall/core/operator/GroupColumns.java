package dev.memwall.core.operator;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The per-group state of an aggregation: a fixed number of columns of 8-byte slots (longs, or
 * doubles by their bits) indexed by group id, all in one zeroed off-heap buffer (column-major)
 * that grows for all columns at once by doubling.
 *
 * <p>One buffer instead of one per column matters: every off-heap buffer is an FFM shared arena,
 * and closing a shared arena costs a handshake with every running thread (tens of microseconds
 * here), which a query with a dozen aggregates per worker would otherwise pay each run.
 *
 * <p>Ownership: the creator closes it; {@link Column#segment()} slices are valid until the next
 * growth. Thread safety: none.
 */
final class GroupColumns implements AutoCloseable {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE;

  private final EngineMemory memory;
  private final int columnCount;
  private int claimed;
  private long capacity;
  private OffHeapBuffer buffer;
  private MemorySegment slots;

  GroupColumns(EngineMemory memory, int columnCount, long initialCapacity) {
    this.memory = memory;
    this.columnCount = columnCount;
    this.capacity = Math.max(1, initialCapacity);
    this.buffer = memory.allocate(columnCount * capacity * Long.BYTES);
    this.slots = buffer.segment();
  }

  /** The next unclaimed column. */
  Column claim() {
    if (claimed == columnCount) {
      throw new IllegalStateException("all " + columnCount + " group columns are claimed");
    }
    return new Column(claimed++);
  }

  /** Makes group {@code group} addressable in every column (new slots zero). */
  void ensureCapacity(long group) {
    if (group < capacity) {
      return;
    }
    long grown = capacity;
    while (grown <= group) {
      grown *= 2;
    }
    OffHeapBuffer larger = memory.allocate(columnCount * grown * Long.BYTES);
    for (int c = 0; c < columnCount; c++) {
      MemorySegment.copy(slots, c * capacity * Long.BYTES, larger.segment(), c * grown * Long.BYTES, capacity * Long.BYTES);
    }
    buffer.close();
    buffer = larger;
    slots = larger.segment();
    capacity = grown;
  }

  @Override
  public void close() {
    buffer.close();
  }

  /** One column: slot {@code g} holds group {@code g}'s value. */
  final class Column {
    private final int index;

    private Column(int index) {
      this.index = index;
    }

    void ensureCapacity(long group) {
      GroupColumns.this.ensureCapacity(group);
    }

    /** This column's slots; valid until the next growth. */
    MemorySegment segment() {
      return slots.asSlice(index * capacity * Long.BYTES, capacity * Long.BYTES);
    }

    long get(long group) {
      return slots.getAtIndex(LONG, index * capacity + group);
    }

    void set(long group, long value) {
      slots.setAtIndex(LONG, index * capacity + group, value);
    }

    double getDouble(long group) {
      return slots.getAtIndex(DOUBLE, index * capacity + group);
    }

    void setDouble(long group, double value) {
      slots.setAtIndex(DOUBLE, index * capacity + group, value);
    }
  }
}
