package dev.memwall.index;

import dev.memwall.core.vector.Column;
import java.util.Objects;

/**
 * The input of a bulkload: {@code (key, rowId)} pairs in ascending key order (equal keys in any
 * order), read by position.
 *
 * <p>{@link #of(long[], long[])} wraps sorted arrays, {@link #fromColumn(Column, KeyType)} sorts an
 * Arrow key column by key with each row's index as its row id, and a benchmark may implement the
 * interface to generate entries on the fly. {@link #validate(KeyType)} checks order and key range
 * in one pass; every bulkload calls it before it allocates anything.
 */
public interface SortedEntries {
  /** Number of entries. */
  long size();

  /** The key at {@code i}, {@code 0 <= i < size()}. */
  long key(long i);

  /** The row id at {@code i}. */
  long rowId(long i);

  /**
   * Checks that the keys ascend and fit {@code type}.
   *
   * @throws IllegalArgumentException naming the first position out of order or the first key that
   *     does not fit
   */
  default void validate(KeyType type) {
    long n = size();
    if (n < 0) {
      throw new IllegalArgumentException("negative entry count " + n);
    }
    long previous = Long.MIN_VALUE;
    for (long i = 0; i < n; i++) {
      long key = key(i);
      if (!type.fits(key)) {
        throw new IllegalArgumentException("bulkload key " + key + " at position " + i + " does not fit an "
            + type + " index");
      }
      if (i > 0 && key < previous) {
        throw new IllegalArgumentException("bulkload input is not sorted by key: position " + i + " holds "
            + key + " after " + previous);
      }
      previous = key;
    }
  }

  /**
   * Sorted parallel arrays (not copied: the caller leaves them alone until the bulkload returns).
   *
   * @throws IllegalArgumentException if the arrays differ in length
   */
  static SortedEntries of(long[] keys, long[] rowIds) {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(rowIds, "rowIds");
    if (keys.length != rowIds.length) {
      throw new IllegalArgumentException(keys.length + " keys but " + rowIds.length + " row ids");
    }
    return new ArrayEntries(keys, rowIds, keys.length);
  }

  /**
   * The rows of an Arrow key column as entries sorted by key (ties by row), each row's index being
   * its row id. The values are copied (and sorted, with a stable radix sort, when they are not
   * ascending already), so the column may be closed afterwards.
   *
   * @throws IllegalArgumentException if the column's type is not {@code type}'s, or it holds a null
   *     (an index has no null keys), naming the column and the first null row
   */
  static SortedEntries fromColumn(Column column, KeyType type) {
    Objects.requireNonNull(column, "column");
    type.checkColumn(column);
    int n = column.length();
    if (column.hasNulls()) {
      for (int row = 0; row < n; row++) {
        if (column.isNull(row)) {
          throw new IllegalArgumentException("column '" + column.name() + "' has a null key at row " + row
              + "; an index cannot hold null keys");
        }
      }
    }
    long[] keys = new long[n];
    long[] rows = new long[n];
    boolean sorted = true;
    for (int row = 0; row < n; row++) {
      keys[row] = column.getLong(row);
      rows[row] = row;
      sorted &= row == 0 || keys[row - 1] <= keys[row];
    }
    if (!sorted) {
      PairSort.sortByKey(keys, rows, n);
    }
    return new ArrayEntries(keys, rows, n);
  }

  /** Entries over parallel arrays. */
  record ArrayEntries(long[] keys, long[] rowIds, int count) implements SortedEntries {
    @Override
    public long size() {
      return count;
    }

    @Override
    public long key(long i) {
      return keys[(int) i];
    }

    @Override
    public long rowId(long i) {
      return rowIds[(int) i];
    }
  }
}
