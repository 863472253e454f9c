package dev.memwall.index;

import java.util.Arrays;

/**
 * A growable list of row ids that index lookups append to, reused across lookups so that a
 * lookup allocates nothing once the list has grown to its working size.
 *
 * <p>Thread safety: none; one list per thread.
 */
public final class RowIds {
  private long[] values;
  private int size;

  public RowIds() {
    this(16);
  }

  public RowIds(int initialCapacity) {
    values = new long[Math.max(1, initialCapacity)];
  }

  /** Appends {@code rowId}. */
  public void add(long rowId) {
    if (size == values.length) {
      values = Arrays.copyOf(values, values.length * 2);
    }
    values[size++] = rowId;
  }

  /** Empties the list, keeping its capacity. */
  public void clear() {
    size = 0;
  }

  /** Drops the row ids after the first {@code newSize} (a reader retrying discards what it added). */
  public void truncate(int newSize) {
    if (newSize < 0 || newSize > size) {
      throw new IndexOutOfBoundsException("cannot truncate " + size + " row ids to " + newSize);
    }
    size = newSize;
  }

  public int size() {
    return size;
  }

  /** The {@code i}-th row id appended since the last {@link #clear()}. */
  public long get(int i) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException("row id " + i + " of " + size);
    }
    return values[i];
  }

  /** A copy of the row ids. */
  public long[] toArray() {
    return Arrays.copyOf(values, size);
  }

  @Override
  public String toString() {
    return Arrays.toString(toArray());
  }
}
