package dev.memwall.join.common;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A chunk of a join result: {@link #size()} pairs (left row id, right row id) in two off-heap int
 * columns. A right row id of {@link JoinIndex#NO_ROW} marks a left row without a partner (left outer
 * join) or a semi/anti join's output row.
 *
 * <p>Ownership: a chunk handed to a {@link java.util.function.Consumer} by
 * {@link dev.memwall.join.Join#stream} is valid only during that call (its memory is reused for the
 * next chunk); copy what must outlive it. A chunk of a {@link JoinIndex} lives as long as the index.
 * Thread safety: read-only view.
 */
public final class PairChunk {
  private static final ValueLayout.OfInt ROW = ValueLayout.JAVA_INT;

  private final MemorySegment leftRows;
  private final MemorySegment rightRows;
  private final int size;

  public PairChunk(MemorySegment leftRows, MemorySegment rightRows, int size) {
    this.leftRows = leftRows;
    this.rightRows = rightRows;
    this.size = size;
  }

  public int size() {
    return size;
  }

  public int left(int i) {
    return leftRows.getAtIndex(ROW, checkIndex(i));
  }

  public int right(int i) {
    return rightRows.getAtIndex(ROW, checkIndex(i));
  }

  /** The left row ids, {@code size()} native-order ints. */
  public MemorySegment leftRows() {
    return leftRows.asSlice(0, (long) size * Integer.BYTES);
  }

  /** The right row ids, {@code size()} native-order ints. */
  public MemorySegment rightRows() {
    return rightRows.asSlice(0, (long) size * Integer.BYTES);
  }

  private int checkIndex(int i) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException("pair " + i + " of a chunk of " + size);
    }
    return i;
  }
}
