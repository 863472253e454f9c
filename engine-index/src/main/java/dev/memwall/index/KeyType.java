package dev.memwall.index;

import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;

/**
 * The key type of an in-memory index: keys are handed to every index as {@code long}s, and an
 * {@link #INT32} index stores them in 4 bytes (twice the fan-out per cache line) after checking
 * that they fit.
 */
public enum KeyType {
  /** 32-bit signed keys, stored in 4 bytes. */
  INT32(4, Integer.MIN_VALUE, Integer.MAX_VALUE, ColumnType.INT32),
  /** 64-bit signed keys, stored in 8 bytes. */
  INT64(8, Long.MIN_VALUE, Long.MAX_VALUE, ColumnType.INT64);

  private final int bytes;
  private final long min;
  private final long max;
  private final ColumnType columnType;

  KeyType(int bytes, long min, long max, ColumnType columnType) {
    this.bytes = bytes;
    this.min = min;
    this.max = max;
    this.columnType = columnType;
  }

  /** Bytes one key occupies in a node. */
  public int bytes() {
    return bytes;
  }

  /** The smallest key of this type. */
  public long min() {
    return min;
  }

  /** The largest key of this type. */
  public long max() {
    return max;
  }

  /** Whether {@code key} is representable in this type. */
  public boolean fits(long key) {
    return key >= min && key <= max;
  }

  /**
   * Returns {@code key} if it fits this type.
   *
   * @throws IllegalArgumentException naming the key and the type when it does not
   */
  public long check(long key) {
    if (key < min || key > max) {
      throw new IllegalArgumentException("key " + key + " does not fit an " + this + " index (range "
          + min + " .. " + max + ")");
    }
    return key;
  }

  /**
   * Checks that {@code column} can supply keys of this type: the column's type must be exactly
   * this key type (an INT32 index is not built from an INT64 column, nor the other way round,
   * and dates, decimals or strings are refused).
   *
   * @throws IllegalArgumentException naming the column and both types otherwise
   */
  public void checkColumn(Column column) {
    if (column.type() != columnType) {
      throw new IllegalArgumentException("column '" + column.name() + "' has type " + column.type()
          + " but an " + this + " index needs a " + columnType + " key column");
    }
  }
}
