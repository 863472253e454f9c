package dev.memwall.index.node;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Fetching a whole node on the JVM, which has no prefetch instruction: a tree loads one word of
 * each cache line of a node back to back, so the core overlaps the misses instead of taking them
 * one by one during the search that follows. The loaded words are folded into a sum the tree hands
 * to {@link #consume}, which compares it with a sentinel so the JIT cannot drop the loads. The
 * pB+-tree and the CSB+-tree share this one copy.
 *
 * <p>Thread safety: stateless but for a counter written only when a folded sum equals the
 * sentinel, which in practice never happens and is never read. Bad input: offsets and line counts
 * are not checked beyond the segment's own bounds.
 */
public final class NodeFetch {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final int LINE = NodePool.LINE_BYTES;
  /** Folded touch loads never equal this in practice; comparing against it keeps the loads alive. */
  private static final long SINK_SENTINEL = 0x9E37_79B9_7F4A_7C15L;

  private NodeFetch() {}

  /**
   * Loads one word of each line but the first of the {@code lines}-line node at {@code off}, back
   * to back (the caller reads the first line anyway): the whole-node fetch.
   */
  public static long touchRest(MemorySegment s, long off, int lines) {
    long folded = 0;
    for (int l = 1; l < lines; l++) {
      folded += s.get(LONG, off + (long) l * LINE);
    }
    return folded;
  }

  /** Loads one word of every line of the {@code lines}-line node at {@code off}: prefetching it ahead of use. */
  public static long touchAll(MemorySegment s, long off, int lines) {
    long folded = s.get(LONG, off);
    for (int l = 1; l < lines; l++) {
      folded += s.get(LONG, off + (long) l * LINE);
    }
    return folded;
  }

  /** Keeps the loads folded into {@code folded} alive. */
  public static void consume(long folded) {
    if (folded == SINK_SENTINEL) {
      Sink.hits++;
    }
  }

  /** Where folded loads go in the (practically impossible) case they match the sentinel. */
  private static final class Sink {
    static volatile long hits;
  }
}
