package dev.memwall.index.page;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * "Prefetching" a node on the JVM (see {@code dev.memwall.index.pbtree.PrefetchingBPlusTree}):
 * Java has no prefetch instruction, so the in-page formats load one word of every cache line of a
 * node back to back before searching it. The loads are independent, so the core overlaps their
 * misses instead of taking them one by one inside the binary search; their values are folded and
 * compared with a sentinel so the JIT cannot drop them.
 *
 * <p>Thread safety: stateless (the sentinel counter is only ever written on a practically
 * impossible match).
 */
public final class LineFetch {
  private static final long SENTINEL = 0x9E37_79B9_7F4A_7C15L;
  private static final int LINE = 64;
  private static volatile long sentinelHits;

  private LineFetch() {}

  /**
   * Loads one word of each cache line of {@code [from, from + bytes)} after the first (which the
   * caller reads anyway) and folds them.
   */
  public static long touch(MemorySegment s, long from, long bytes) {
    long folded = 0;
    long end = from + bytes;
    for (long at = (from | (LINE - 1)) + 1; at < end; at += LINE) {
      folded += s.get(ValueLayout.JAVA_BYTE, at);
    }
    return folded;
  }

  /** Keeps folded loads alive. */
  public static void consume(long folded) {
    if (folded == SENTINEL) {
      sentinelHits++;
    }
  }
}
