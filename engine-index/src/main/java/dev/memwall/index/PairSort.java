package dev.memwall.index;

/**
 * Stable LSD radix sort of {@code (key, value)} pairs by signed 64-bit key, 16 bits a pass; passes
 * whose digit is the same for every key are skipped, so small key ranges cost few passes.
 */
final class PairSort {
  private static final int DIGIT_BITS = 16;
  private static final int BUCKETS = 1 << DIGIT_BITS;

  private PairSort() {}

  /** Sorts the first {@code n} pairs of the parallel arrays by key; equal keys keep their order. */
  static void sortByKey(long[] keys, long[] values, int n) {
    if (n < 2) {
      return;
    }
    long[] keyBuffer = new long[n];
    long[] valueBuffer = new long[n];
    long[] srcKeys = keys;
    long[] srcValues = values;
    long[] dstKeys = keyBuffer;
    long[] dstValues = valueBuffer;
    int[] counts = new int[BUCKETS];
    for (int shift = 0; shift < Long.SIZE; shift += DIGIT_BITS) {
      java.util.Arrays.fill(counts, 0);
      for (int i = 0; i < n; i++) {
        counts[digit(srcKeys[i], shift)]++;
      }
      if (counts[digit(srcKeys[0], shift)] == n) {
        continue; // every key has the same digit here: the pass would not move anything
      }
      int sum = 0;
      for (int b = 0; b < BUCKETS; b++) {
        int c = counts[b];
        counts[b] = sum;
        sum += c;
      }
      for (int i = 0; i < n; i++) {
        int at = counts[digit(srcKeys[i], shift)]++;
        dstKeys[at] = srcKeys[i];
        dstValues[at] = srcValues[i];
      }
      long[] t = srcKeys;
      srcKeys = dstKeys;
      dstKeys = t;
      t = srcValues;
      srcValues = dstValues;
      dstValues = t;
    }
    if (srcKeys != keys) {
      System.arraycopy(srcKeys, 0, keys, 0, n);
      System.arraycopy(srcValues, 0, values, 0, n);
    }
  }

  /** The digit at {@code shift} of the key with its sign bit flipped, so signed order is unsigned order. */
  private static int digit(long key, int shift) {
    return (int) (((key ^ Long.MIN_VALUE) >>> shift) & (BUCKETS - 1));
  }
}
