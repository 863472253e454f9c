package dev.memwall.bench.frequent;

import dev.memwall.core.hash.Hashing;
import java.util.Arrays;

/**
 * The exact baseline of {@link FrequentElementsBenchmark}: a count per distinct key in an
 * open-addressing table of primitive longs (linear probing, at most half full, doubled when it
 * fills), answering top-k and frequent-elements queries by scanning every count. Thread safety:
 * none. Bad input: any long is a key.
 */
final class ExactCounts {
  private long[] keys = new long[1024];
  private long[] counts = new long[1024];
  private int size;
  private long length;
  /** A min-heap of the k largest counts seen by a top-k scan, and their keys. */
  private long[] heapCounts = new long[0];
  private long[] heapKeys = new long[0];

  void offer(long key) {
    length++;
    int mask = keys.length - 1;
    int slot = (int) Hashing.mix64(key) & mask;
    while (counts[slot] != 0) {
      if (keys[slot] == key) {
        counts[slot]++;
        return;
      }
      slot = (slot + 1) & mask;
    }
    keys[slot] = key;
    counts[slot] = 1;
    if (++size * 2 > keys.length) {
      grow();
    }
  }

  private void grow() {
    long[] oldKeys = keys;
    long[] oldCounts = counts;
    keys = new long[oldKeys.length * 2];
    counts = new long[oldKeys.length * 2];
    int mask = keys.length - 1;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldCounts[i] != 0) {
        int slot = (int) Hashing.mix64(oldKeys[i]) & mask;
        while (counts[slot] != 0) {
          slot = (slot + 1) & mask;
        }
        keys[slot] = oldKeys[i];
        counts[slot] = oldCounts[i];
      }
    }
  }

  long count(long key) {
    int mask = keys.length - 1;
    for (int slot = (int) Hashing.mix64(key) & mask; counts[slot] != 0; slot = (slot + 1) & mask) {
      if (keys[slot] == key) {
        return counts[slot];
      }
    }
    return 0;
  }

  /** The keys of the k largest counts into {@code into}, largest first (ties in no particular order); returns how many. */
  int topK(int k, long[] into) {
    if (heapCounts.length < k) {
      heapCounts = new long[k];
      heapKeys = new long[k];
    }
    int n = 0;
    for (int slot = 0; slot < counts.length; slot++) {
      long count = counts[slot];
      if (count == 0) {
        continue;
      }
      if (n < k) {
        heapCounts[n] = count;
        heapKeys[n] = keys[slot];
        siftUp(n++);
      } else if (count > heapCounts[0]) {
        heapCounts[0] = count;
        heapKeys[0] = keys[slot];
        siftDown(0, n);
      }
    }
    for (int end = n - 1; end > 0; end--) { // heap sort: the smallest goes to the back
      swap(0, end);
      siftDown(0, end);
    }
    System.arraycopy(heapKeys, 0, into, 0, n);
    return n;
  }

  /** The keys counted more than {@code phi * N} times into {@code into} (as many as fit); returns how many there are. */
  int frequent(double phi, long[] into) {
    double threshold = phi * length;
    int n = 0;
    for (int slot = 0; slot < counts.length; slot++) {
      if (counts[slot] > threshold) {
        if (n < into.length) {
          into[n] = keys[slot];
        }
        n++;
      }
    }
    return n;
  }

  void clear() {
    Arrays.fill(counts, 0);
    size = 0;
    length = 0;
  }

  private void siftUp(int i) {
    while (i > 0 && heapCounts[(i - 1) / 2] > heapCounts[i]) {
      swap(i, (i - 1) / 2);
      i = (i - 1) / 2;
    }
  }

  private void siftDown(int i, int n) {
    while (true) {
      int smallest = i;
      int left = 2 * i + 1;
      if (left < n && heapCounts[left] < heapCounts[smallest]) {
        smallest = left;
      }
      if (left + 1 < n && heapCounts[left + 1] < heapCounts[smallest]) {
        smallest = left + 1;
      }
      if (smallest == i) {
        return;
      }
      swap(i, smallest);
      i = smallest;
    }
  }

  private void swap(int a, int b) {
    long count = heapCounts[a];
    heapCounts[a] = heapCounts[b];
    heapCounts[b] = count;
    long key = heapKeys[a];
    heapKeys[a] = heapKeys[b];
    heapKeys[b] = key;
  }
}
