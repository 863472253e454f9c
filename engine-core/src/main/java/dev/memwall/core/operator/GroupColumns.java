package dev.memwall.core.operator;

import dev.memwall.core.machine.CacheLevel;
import dev.memwall.core.machine.SysfsTopology;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The per-group state of an aggregation: a fixed number of columns of 8-byte slots (longs, or
 * doubles by their bits) indexed by group id, all in one zeroed off-heap buffer that grows for all
 * columns at once, by doubling or to the groups asked for where that is more (a reservation of a
 * worker's expected groups, which rounding up to a power of two would make up to twice as large to
 * zero). The buffer is column-major or row-major as the
 * {@link AggregateLayout} says: slot {@code g} of a column is at index {@code base + g * stride} of
 * {@link #slots()}, with stride 1 for {@link AggregateLayout#COLUMNS} and the column count for
 * {@link AggregateLayout#ROWS}.
 *
 * <p>One buffer instead of one per column matters: every off-heap buffer is an FFM shared arena,
 * and closing a shared arena costs a handshake with every running thread (tens of microseconds
 * here), which a query with a dozen aggregates per worker would otherwise pay each run.
 *
 * <p>Ownership: the creator closes it; {@link #slots()} and the columns' {@link Column#base()} are
 * valid until the next growth. Thread safety: none.
 */
final class GroupColumns implements AutoCloseable {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE;
  private static final int LINE_BYTES = SysfsTopology.dataCaches(SysfsTopology.DEFAULT_ROOT).stream()
      .mapToInt(CacheLevel::lineBytes).filter(bytes -> bytes >= Long.BYTES).findFirst().orElse(64);

  private final EngineMemory memory;
  private final int columnCount;
  private final AggregateLayout layout;
  private final long stride;
  private int claimed;
  private long capacity;
  private OffHeapBuffer buffer;
  private MemorySegment slots;

  GroupColumns(EngineMemory memory, int columnCount, long initialCapacity, AggregateLayout layout) {
    this.memory = memory;
    this.columnCount = columnCount;
    this.layout = layout;
    this.stride = layout == AggregateLayout.ROWS ? wholeLines(columnCount) : 1;
    this.capacity = Math.max(1, initialCapacity);
    this.buffer = memory.allocate(rowSlots() * capacity * Long.BYTES);
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
    long grown = Math.max(capacity * 2, group + 1); // a reservation of many groups at once: that many, not the next power of two
    OffHeapBuffer larger = memory.allocateUninitialized(rowSlots() * grown * Long.BYTES, Placement.HUGE_PAGES);
    MemorySegment to = larger.segment();
    if (layout == AggregateLayout.ROWS) { // the old groups' rows, then zeroes
      long copied = stride * capacity * Long.BYTES;
      MemorySegment.copy(slots, 0, to, 0, copied);
      to.asSlice(copied).fill((byte) 0);
    } else { // each column: the old groups' values, then zeroes
      long copied = capacity * Long.BYTES;
      for (int c = 0; c < columnCount; c++) {
        MemorySegment.copy(slots, c * copied, to, c * grown * Long.BYTES, copied);
        to.asSlice(c * grown * Long.BYTES + copied, (grown - capacity) * Long.BYTES).fill((byte) 0);
      }
    }
    buffer.close();
    buffer = larger;
    slots = larger.segment();
    capacity = grown;
  }

  /** Slots per group in all columns together, padding included. */
  private long rowSlots() {
    return layout == AggregateLayout.ROWS ? stride : columnCount;
  }

  /**
   * Rows of {@code columns} slots padded to whole cache lines (the line size from sysfs, 64 bytes
   * where it is unknown), so that each row starts a line and its first columns share that line.
   */
  private static long wholeLines(int columns) {
    long perLine = LINE_BYTES / Long.BYTES;
    return (columns + perLine - 1) / perLine * perLine;
  }

  /** Zeroes every slot of every column, keeping the capacity. */
  void clear() {
    slots.fill((byte) 0);
  }

  /** Off-heap bytes of the columns' buffer. */
  long footprintBytes() {
    return slots.byteSize();
  }

  /** The whole buffer; valid until the next growth. */
  MemorySegment slots() {
    return slots;
  }

  /** Slots between one group's value and the next's in every column. */
  long stride() {
    return stride;
  }

  AggregateLayout layout() {
    return layout;
  }

  @Override
  public void close() {
    buffer.close();
  }

  /** One column: its slot for group {@code g} is at index {@code base() + g * stride()} of {@link #slots()}. */
  final class Column {
    private final int index;

    private Column(int index) {
      this.index = index;
    }

    void ensureCapacity(long group) {
      GroupColumns.this.ensureCapacity(group);
    }

    /** Index of group 0's slot in {@link #slots()}; valid until the next growth. */
    long base() {
      return layout == AggregateLayout.ROWS ? index : index * capacity;
    }

    /** The buffer all columns share ({@link GroupColumns#slots()}). */
    MemorySegment slots() {
      return slots;
    }

    /** {@link GroupColumns#stride()}. */
    long stride() {
      return GroupColumns.this.stride();
    }

    private long at(long group) {
      return base() + group * stride();
    }

    long get(long group) {
      return slots.getAtIndex(LONG, at(group));
    }

    void set(long group, long value) {
      slots.setAtIndex(LONG, at(group), value);
    }

    double getDouble(long group) {
      return slots.getAtIndex(DOUBLE, at(group));
    }

    void setDouble(long group, double value) {
      slots.setAtIndex(DOUBLE, at(group), value);
    }
  }
}
