package dev.memwall.core.frequent;

/**
 * Orders a merge's candidate counters: indexes by descending count, equal counts by ascending key,
 * by a merge sort of primitive indexes (no boxing of the up to 2m candidates). Thread safety:
 * stateless.
 */
final class CountOrder {
  private CountOrder() {}

  /** The indexes {@code 0..n-1} ordered by descending {@code counts}, then ascending {@code keys}. */
  static int[] descending(long[] counts, long[] keys, int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    int[] scratch = new int[n];
    for (int width = 1; width < n; width *= 2) {
      for (int low = 0; low < n - width; low += 2 * width) {
        merge(order, scratch, low, low + width, Math.min(low + 2 * width, n), counts, keys);
      }
    }
    return order;
  }

  private static void merge(int[] order, int[] scratch, int low, int middle, int high, long[] counts, long[] keys) {
    System.arraycopy(order, low, scratch, low, high - low);
    int left = low;
    int right = middle;
    for (int out = low; out < high; out++) {
      if (right >= high || (left < middle && !before(scratch[right], scratch[left], counts, keys))) {
        order[out] = scratch[left++];
      } else {
        order[out] = scratch[right++];
      }
    }
  }

  /** Whether candidate {@code a} comes strictly before {@code b}. */
  private static boolean before(int a, int b, long[] counts, long[] keys) {
    return counts[a] > counts[b] || (counts[a] == counts[b] && keys[a] < keys[b]);
  }
}
