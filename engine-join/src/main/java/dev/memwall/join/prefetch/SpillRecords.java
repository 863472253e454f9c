package dev.memwall.join.prefetch;

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
public final class SpillRecords {
  public static final int BYTES = 16;
  public static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  public static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  public static final long CODE = 0;
  public static final long ROW = 4;
  public static final long KEY = 8;

  private SpillRecords() {}

  public static int code(long key) {
    return (int) (key >>> 32);
  }
}
