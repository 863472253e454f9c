package dev.memwall.index.disk;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.index.page.PageFormat;

/**
 * The node widths of a disk-first fpB+-tree's in-page trees (seed 002 section 3.3.3): non-leaf
 * nodes of w lines, leaf nodes of x lines, found by enumerating w, x in 1 .. {@value #MAX_LINES}.
 * For each pair the in-page tree gets the number of levels L (>= 2) that holds the most leaf
 * nodes in the page, which fixes the page fan-out and the search cost of equation 3.1,
 * {@code (L-1) [T1 + (w-1) Tnext] + T1 + (x-1) Tnext}; goal G then picks the largest page fan-out
 * among the pairs within 10% of the cheapest search (on a tie, the cheaper one).
 *
 * <p>Node formats assumed here and used by {@link DiskFirstFormat}: a page's first line is its
 * header; a non-leaf node has a 2-byte key count, 2 bytes of padding, K keys and K+1 2-byte in-page
 * line offsets ({@code K = floor((64w - 6) / (keyBytes + 2))}); a leaf node has a 2-byte count, a
 * 2-byte next-leaf offset, then e keys and e values ({@code e = floor((64x - 4) / (keyBytes +
 * valueBytes))}). With 4-byte keys and values, T1 = 250 and Tnext = 15 this reproduces every
 * disk-first row of the thesis's Table 3.1.
 *
 * @param nonLeafLines w
 * @param leafLines x
 * @param levels L, the in-page tree's most levels
 * @param leafNodes most leaf nodes in a page
 * @param pageFanout most entries in a page: {@code leafNodes * leafEntries}
 * @param leafEntries entries per leaf node
 * @param nonLeafFanout children per non-leaf node
 * @param cost equation 3.1 in the unit of T1
 * @param bestCost the cheapest cost over all pairs
 */
public record InPageWidths(int nonLeafLines, int leafLines, int levels, int leafNodes, int pageFanout,
    int leafEntries, int nonLeafFanout, double cost, double bestCost) {

  /** Widest node considered, in lines. */
  public static final int MAX_LINES = 32;
  /** Cache line bytes of the in-page nodes (as {@code dev.memwall.index.node.NodePool#LINE_BYTES}). */
  public static final int LINE_BYTES = 64;
  /** G's tolerance: within 10% of the best search cost. */
  public static final double TOLERANCE = 1.10;

  /**
   * Goal G over every pair of widths.
   *
   * @throws IllegalArgumentException for latencies that are not positive or a page too small
   */
  public static InPageWidths choose(int pageBytes, int keyBytes, int valueBytes, double t1, double tnext) {
    if (!(t1 > 0) || !(tnext > 0)) {
      throw new IllegalArgumentException("T1 and Tnext must be positive, got " + t1 + " and " + tnext);
    }
    InPageWidths[] all = new InPageWidths[MAX_LINES * MAX_LINES];
    double best = Double.POSITIVE_INFINITY;
    int n = 0;
    for (int w = 1; w <= MAX_LINES; w++) {
      for (int x = 1; x <= MAX_LINES; x++) {
        InPageWidths e = evaluate(pageBytes, keyBytes, valueBytes, w, x, t1, tnext);
        if (e != null) {
          all[n++] = e;
          best = Math.min(best, e.cost);
        }
      }
    }
    if (n == 0) {
      throw new IllegalArgumentException("no in-page tree fits a " + pageBytes + "-byte page");
    }
    InPageWidths chosen = null;
    for (int i = 0; i < n; i++) {
      InPageWidths e = all[i];
      if (e.cost <= TOLERANCE * best && (chosen == null || e.pageFanout > chosen.pageFanout
          || (e.pageFanout == chosen.pageFanout && e.cost < chosen.cost))) {
        chosen = e;
      }
    }
    return chosen.withBest(best);
  }

  /** G with the profile's T1 and Tnext ({@link MachineProfile#missLatencyNanos()}, pipelined miss). */
  public static InPageWidths fromProfile(MachineProfile profile, int pageBytes, int keyBytes, int valueBytes) {
    return choose(pageBytes, keyBytes, valueBytes, profile.missLatencyNanos(), profile.pipelinedMissNanos());
  }

  private InPageWidths withBest(double best) {
    return new InPageWidths(nonLeafLines, leafLines, levels, leafNodes, pageFanout, leafEntries, nonLeafFanout,
        cost, best);
  }

  /**
   * The in-page tree of w-line non-leaf and x-line leaf nodes, or null if no two-level tree of
   * them fits the page.
   */
  public static InPageWidths evaluate(int pageBytes, int keyBytes, int valueBytes, int w, int x, double t1,
      double tnext) {
    int usable = pageBytes / LINE_BYTES - PageFormat.HEADER_BYTES / LINE_BYTES;
    int keys = (LINE_BYTES * w - 6) / (keyBytes + 2);
    int entries = (LINE_BYTES * x - 4) / (keyBytes + valueBytes);
    if (keys < 1 || entries < 1 || x + w > usable) {
      return null;
    }
    int fanout = keys + 1;
    int bestNodes = 0;
    int bestLevels = 0;
    for (int levels = 2; levels <= 8; levels++) {
      int nodes = maxLeafNodes(usable, w, x, fanout, levels);
      if (nodes > bestNodes) {
        bestNodes = nodes;
        bestLevels = levels;
      }
    }
    if (bestNodes == 0) {
      return null;
    }
    double cost = (bestLevels - 1) * (t1 + (w - 1) * tnext) + t1 + (x - 1) * tnext;
    return new InPageWidths(w, x, bestLevels, bestNodes, bestNodes * entries, entries, fanout, cost, cost);
  }

  /** Most leaf nodes of an in-page tree of at most {@code levels} levels within {@code usable} lines. */
  static int maxLeafNodes(int usable, int w, int x, int fanout, int levels) {
    long limit = 1;
    for (int i = 1; i < levels && limit <= usable; i++) {
      limit *= fanout;
    }
    int nodes = (int) Math.min(limit, usable / x);
    while (nodes > 0 && linesFor(nodes, w, x, fanout) > usable) {
      nodes--;
    }
    return nodes;
  }

  /** Lines an in-page tree over {@code leaves} leaf nodes occupies, non-leaf levels packed. */
  static long linesFor(int leaves, int w, int x, int fanout) {
    long lines = (long) leaves * x;
    for (int count = leaves; count > 1; ) {
      count = (count + fanout - 1) / fanout;
      lines += (long) count * w;
    }
    return lines;
  }
}
