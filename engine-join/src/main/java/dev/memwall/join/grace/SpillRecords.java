package dev.memwall.join.grace;

import java.lang.foreign.ValueLayout;

/**
 * The 16-byte tuple of partition pages, in memory and in spill files: the 4-byte hash code (the one
 * the hash table buckets on, so the join phase never rehashes), the 4-byte row id, and the 8-byte
 * join key in its bijective 64-bit form ({@link dev.memwall.join.keys.KeyShape}).
 *
 * <pre>
 *   offset 0  int  hash code   = (int) (key >>> 32)
 *   offset 4  int  row id      (global row of the input)
 *   offset 8  long key         (the mixed key; a hash, confirmed on the columns, for wide keys)
 * </pre>
 */
final class SpillRecords {
  static final int BYTES = 16;
  static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  static final long CODE = 0;
  static final long ROW = 4;
  static final long KEY = 8;

  private SpillRecords() {}

  static int code(long key) {
    return (int) (key >>> 32);
  }
}
