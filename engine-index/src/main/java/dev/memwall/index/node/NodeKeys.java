package dev.memwall.index.node;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Sorted keys packed one after the other inside a node: {@code int32} keys in 4 bytes,
 * {@code int64} keys in 8, handed to and from the trees as {@code long}s. The pB+-tree
 * ({@code dev.memwall.index.pbtree}) and the CSB+-tree ({@code dev.memwall.index.csb}) store their
 * keys this way; this class holds the one copy of the reads, writes and search they share.
 *
 * <p>Every method takes the offset of the node's first key and {@code int64}, the tree's key width
 * (a final field of the tree), so once the JIT inlines these static methods the code is the branch
 * each tree had in its own accessor.
 *
 * <p>Thread safety: stateless; as safe as the caller's access to the segment. Bad input: nothing is
 * checked beyond the segment's own bounds: callers pass positions within the node's capacity and,
 * for {@code int32} keys, values they have checked to fit (a store keeps the low 32 bits).
 */
public final class NodeKeys {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

  private NodeKeys() {}

  /** Key {@code i} of the keys starting at {@code keysOff}. */
  public static long get(MemorySegment s, long keysOff, int i, boolean int64) {
    return int64 ? s.get(LONG, keysOff + 8L * i) : s.get(INT, keysOff + 4L * i);
  }

  /** Writes {@code key} as key {@code i} of the keys starting at {@code keysOff}. */
  public static void set(MemorySegment s, long keysOff, int i, long key, boolean int64) {
    if (int64) {
      s.set(LONG, keysOff + 8L * i, key);
    } else {
      s.set(INT, keysOff + 4L * i, (int) key);
    }
  }

  /**
   * First position in {@code [0, n]} whose key is {@code >= key} ({@code upper}: {@code > key}),
   * keys at {@code keysOff}: a binary search without data-dependent branches (the comparison
   * selects the next base), so mispredictions do not flush loads already issued.
   *
   * <p>Specialization: one loop for 8-byte keys and its twin for 4-byte keys, kept apart so each
   * loop reads one width with no branch on it inside.
   */
  public static int bound(MemorySegment s, long keysOff, int n, long key, boolean upper, boolean int64) {
    if (n == 0) {
      return 0;
    }
    int base = 0;
    int len = n;
    if (int64) {
      while (len > 1) {
        int half = len >>> 1;
        long k = s.get(LONG, keysOff + 8L * (base + half));
        base = (upper ? k <= key : k < key) ? base + half : base;
        len -= half;
      }
      long k = s.get(LONG, keysOff + 8L * base);
      return base + ((upper ? k <= key : k < key) ? 1 : 0);
    }
    while (len > 1) {
      int half = len >>> 1;
      long k = s.get(INT, keysOff + 4L * (base + half));
      base = (upper ? k <= key : k < key) ? base + half : base;
      len -= half;
    }
    long k = s.get(INT, keysOff + 4L * base);
    return base + ((upper ? k <= key : k < key) ? 1 : 0);
  }
}
