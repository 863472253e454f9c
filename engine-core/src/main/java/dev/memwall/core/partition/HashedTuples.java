package dev.memwall.core.partition;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A fixed-capacity off-heap array of hashed tuples (64-bit hash, 32-bit row id), stored column-wise:
 * one region of longs for the hashes, one of ints for the row ids (12 bytes a tuple), both in a
 * single {@link OffHeapBuffer} charged to the caller's budget. The radix joins use this layout for
 * any key (the join planner's {@code Layout.HASHED}); {@link PackedTuples} is the 8-byte layout for a
 * key of one int32 column.
 *
 * <p>Ownership: the creator closes it. Thread safety: none of its own; threads may write disjoint
 * index ranges concurrently (the memory is a shared-arena segment).
 */
public final class HashedTuples implements AutoCloseable {
  /** Layout of a hash. */
  public static final ValueLayout.OfLong HASH = ValueLayout.JAVA_LONG;
  /** Layout of a row id. */
  public static final ValueLayout.OfInt ROW = ValueLayout.JAVA_INT;
  /** Bytes a tuple occupies. */
  public static final long BYTES_PER_TUPLE = Long.BYTES + Integer.BYTES;

  private final OffHeapBuffer buffer;
  private final MemorySegment hashes;
  private final MemorySegment rows;
  private final long capacity;

  private HashedTuples(OffHeapBuffer buffer, long capacity) {
    this.buffer = buffer;
    this.capacity = capacity;
    this.hashes = buffer.segment().asSlice(0, capacity * Long.BYTES);
    this.rows = buffer.segment().asSlice(capacity * Long.BYTES, capacity * Integer.BYTES);
  }

  /**
   * Room for {@code capacity} tuples, zeroed.
   *
   * @throws dev.memwall.core.memory.BudgetExceededException if the budget cannot cover it
   */
  public static HashedTuples allocate(EngineMemory memory, long capacity, Placement placement) {
    if (capacity < 0) {
      throw new IllegalArgumentException("negative tuple capacity " + capacity);
    }
    return new HashedTuples(memory.allocate(bytesFor(capacity), placement), capacity);
  }

  /** The bytes {@link #allocate} takes for {@code capacity} tuples. */
  public static long bytesFor(long capacity) {
    return Math.max(1, capacity) * BYTES_PER_TUPLE;
  }

  public long capacity() {
    return capacity;
  }

  /** The hashes, {@link #HASH} at index i. */
  public MemorySegment hashes() {
    return hashes;
  }

  /** The row ids, {@link #ROW} at index i. */
  public MemorySegment rows() {
    return rows;
  }

  public long hash(long index) {
    return hashes.getAtIndex(HASH, index);
  }

  public int row(long index) {
    return rows.getAtIndex(ROW, index);
  }

  public void set(long index, long hash, int row) {
    hashes.setAtIndex(HASH, index, hash);
    rows.setAtIndex(ROW, index, row);
  }

  /** Whether the region really lies on huge pages. */
  public boolean hugePages() {
    return buffer.hugePages();
  }

  @Override
  public void close() {
    buffer.close();
  }
}
