package dev.memwall.core.operator;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryColumn;
import java.util.Arrays;
import java.util.List;

/**
 * A full sort by keys that pack into one {@code long} a row: each key's value as its offset from the
 * smallest value in the rows (for a string column with ranked dictionary entries, its entry's rank),
 * flipped for a descending key, with null at either end of the key's range; the keys side by side,
 * most significant first, and the row's position in the lowest bits. The packed values then sort as
 * primitives ({@link Arrays#sort(long[])}), without a comparator's calls and column lookups per
 * comparison, and ties keep their input order because the position decides them.
 *
 * <p>Keys pack where none is a double or a string column without ranks, and their ranges (largest
 * less smallest value, plus one value for null where there is one) and the position fit 63 bits
 * together: small domains, as the keys of an aggregation's result (counts, dates, codes, ranked
 * names) usually are. Other sorts are left to the comparator.
 *
 * <p>The order is {@link Sorter#compare}'s: integral values by {@link Column#getLong}, ranks for
 * ranked strings, nulls first or last whatever the direction. Thread safety: stateless.
 */
final class PackedSortKeys {
  private static final int MAX_BITS = 63;

  private PackedSortKeys() {}

  /** The values of one key in the rows: smallest, largest (none while min > max), and whether a null is among them. */
  private static final class Range {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    boolean nulls;

    /** The values the key takes, null included, or a negative number where they overflow a long. */
    long values() {
      long span = min > max ? 0 : max - min;
      return span < 0 || span == Long.MAX_VALUE ? -1 : span + (nulls ? 2 : 1);
    }

    long offset() {
      return min > max ? 0 : min;
    }
  }

  /**
   * Orders {@code refs} (every row of {@code batches}, in batch order, as {@link Sorter} makes them)
   * stably by the keys where they pack (see the class comment); returns false, changing nothing,
   * where they do not. Takes one more array of a long per row, as the merge sort's scratch does.
   *
   * @param ranks per key, the ranks of a string column's dictionary entries, or null
   */
  static boolean sort(long[] refs, List<Batch> batches, int[] columns, boolean[] descending, boolean[] nullsFirst,
      int[][] ranks) {
    int n = refs.length;
    if (n <= 1) {
      return true;
    }
    for (int k = 0; k < columns.length; k++) { // before any pass over the rows
      ColumnType.Kind kind = batches.getFirst().column(columns[k]).type().kind();
      if (kind == ColumnType.Kind.FLOAT64 || (kind == ColumnType.Kind.STRING && ranks[k] == null)) {
        return false;
      }
    }
    int positionBits = bitsFor(n);
    int bits = positionBits;
    Range[] ranges = new Range[columns.length];
    for (int k = 0; k < columns.length; k++) {
      ranges[k] = new Range();
      for (Batch batch : batches) {
        scan(batch.column(columns[k]), batch.rowCount(), ranks[k], ranges[k]);
      }
      long values = ranges[k].values();
      bits += values < 0 ? 64 : bitsFor(values);
      if (bits > MAX_BITS) {
        return false;
      }
    }
    long[] packed = new long[n];
    for (int k = 0; k < columns.length; k++) {
      Range range = ranges[k];
      int at = 0;
      for (Batch batch : batches) {
        at = pack(batch.column(columns[k]), batch.rowCount(), ranks[k], range, descending[k], nullsFirst[k],
            bitsFor(range.values()), packed, at);
      }
    }
    ExecutionControl.checkpoint();
    for (int i = 0; i < n; i++) {
      packed[i] = packed[i] << positionBits | i;
    }
    Arrays.sort(packed);
    long positions = -1L >>> (64 - positionBits);
    for (int i = 0; i < n; i++) {
      packed[i] = refs[(int) (packed[i] & positions)];
    }
    System.arraycopy(packed, 0, refs, 0, n);
    return true;
  }

  /** The bits that hold {@code values} distinct values (0 for one). */
  private static int bitsFor(long values) {
    return values <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(values - 1);
  }

  private static long value(Column column, int row, int[] ranks) {
    return ranks != null ? ranks[((DictionaryColumn) column).code(row)] : column.getLong(row);
  }

  /** Widens {@code range} by the values of the first {@code rows} rows of {@code column}. */
  private static void scan(Column column, int rows, int[] ranks, Range range) {
    for (int row = 0; row < rows; row++) {
      if (column.isNull(row)) {
        range.nulls = true;
      } else {
        long value = value(column, row, ranks);
        range.min = Math.min(range.min, value);
        range.max = Math.max(range.max, value);
      }
    }
  }

  /**
   * Shifts the packed values from {@code at} on left by {@code bits} and puts the key's value of each
   * of the first {@code rows} rows of {@code column} below; returns the position after them.
   */
  private static int pack(Column column, int rows, int[] ranks, Range range, boolean descending, boolean nullsFirst,
      int bits, long[] packed, int at) {
    long offset = range.offset();
    long last = range.values() - 1; // the largest packed value, null's where nulls come last
    long shift = range.nulls && nullsFirst ? 1 : 0; // values above null's 0 where nulls come first
    long largest = range.max - offset; // the largest value's offset, where a descending key starts
    for (int row = 0; row < rows; row++, at++) {
      long key;
      if (column.isNull(row)) {
        key = nullsFirst ? 0 : last;
      } else {
        long relative = value(column, row, ranks) - offset;
        key = (descending ? largest - relative : relative) + shift;
      }
      packed[at] = packed[at] << bits | key;
    }
    return at;
  }
}
