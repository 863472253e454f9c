package dev.memwall.index.flash;

import java.util.function.IntToLongFunction;

/**
 * A stable sort of slot numbers by their keys, for the flash formats' rewrites: slots that arrive
 * in insertion order keep it among equal keys. A bottom-up merge sort on primitive arrays (no
 * boxing); the caller's arrays are not kept.
 */
final class SlotSort {
  private SlotSort() {}

  /** Sorts {@code slots[0, n)} by {@code key}, equal keys keeping their order. */
  static void byKey(int[] slots, int n, IntToLongFunction key) {
    if (n < 2) {
      return;
    }
    long[] keys = new long[slots.length];
    for (int i = 0; i < n; i++) {
      keys[i] = key.applyAsLong(slots[i]);
    }
    int[] s = slots;
    long[] k = keys;
    int[] t = new int[n];
    long[] tk = new long[n];
    for (int width = 1; width < n; width *= 2) {
      for (int lo = 0; lo < n; lo += 2 * width) {
        int mid = Math.min(lo + width, n);
        int hi = Math.min(lo + 2 * width, n);
        int a = lo;
        int b = mid;
        for (int o = lo; o < hi; o++) {
          if (a < mid && (b >= hi || k[a] <= k[b])) {
            t[o] = s[a];
            tk[o] = k[a++];
          } else {
            t[o] = s[b];
            tk[o] = k[b++];
          }
        }
      }
      int[] swap = s;
      s = t;
      t = swap;
      long[] swapKeys = k;
      k = tk;
      tk = swapKeys;
    }
    if (s != slots) {
      System.arraycopy(s, 0, slots, 0, n);
    }
  }
}
