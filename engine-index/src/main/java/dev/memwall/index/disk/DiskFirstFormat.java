package dev.memwall.index.disk;

import dev.memwall.index.page.AbstractPageFormat;
import dev.memwall.index.page.LineFetch;
import dev.memwall.index.page.PageFormat;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The page of a disk-first fpB+-tree (seed 002 section 3.3.3): a small cache-optimized tree inside
 * each page, with exactly two node sizes ({@link InPageWidths}: non-leaf nodes of w lines, leaf
 * nodes of x lines), 2-byte in-page line offsets instead of pointers, and the in-page leaf nodes
 * linked in key order.
 *
 * <pre>
 * page header (line 0): [0,4) checksum [4,6) kind [8,12) entries [16,18) root line
 *                       [18,20) first leaf line [20,22) last leaf line [22,24) levels [24,26) leaf nodes
 * non-leaf node:        [0,2) keys K  [4, 4+K*kb) keys  then K+1 child lines (2 bytes each)
 * leaf node:            [0,2) count   [2,4) next leaf line (0: none)  [4, 4+e*kb) keys  then e values
 * </pre>
 *
 * Separator {@code i} of a non-leaf node lies between child {@code i} and {@code i+1}: keys under
 * child {@code i} are {@code <=} it, keys under child {@code i+1} are {@code >=} it.
 *
 * <p>{@link #build} spreads the entries evenly over as many leaf nodes as the page holds (so
 * inserts find free slots) and builds the non-leaf levels above them. {@link #insertAt} shifts
 * entries inside one leaf node only; when that node is full it refuses, and the tree then
 * reorganizes the page's in-page tree (when the page has at least one free slot per leaf node
 * left, {@link #reorganizeLimit()}) or splits the page. {@link #remove} is lazy: nodes are never
 * merged.
 *
 * <p>Searching a node first loads all its key lines back to back ({@link LineFetch}), the JVM's
 * stand-in for the thesis's whole-node prefetch, so a node costs about {@code T1 + (lines-1)
 * Tnext}, the cost {@link InPageWidths} assumes.
 *
 * <p>Thread safety: immutable; see {@link PageFormat} for readers of torn pages.
 */
public final class DiskFirstFormat extends AbstractPageFormat {
  private static final long ROOT = 16;
  private static final long FIRST_LEAF = 18;
  private static final long LAST_LEAF = 20;
  private static final long LEVELS = 22;
  private static final long LEAF_NODES = 24;
  private static final int LINE = InPageWidths.LINE_BYTES;
  private static final int MAX_LEVELS = 8;

  private final InPageWidths widths;
  private final int e;
  private final int fanout;
  private final int w;
  private final int x;
  private final long leafValues;
  private final long childLines;

  /**
   * The format for the given widths (as {@link InPageWidths#evaluate} returns them for this page
   * size, key and value width).
   */
  public DiskFirstFormat(int pageBytes, int keyBytes, int valueBytes, InPageWidths widths) {
    super(pageBytes, keyBytes, valueBytes);
    this.widths = Objects.requireNonNull(widths, "widths");
    this.e = widths.leafEntries();
    this.fanout = widths.nonLeafFanout();
    this.w = widths.nonLeafLines();
    this.x = widths.leafLines();
    this.leafValues = 4L + (long) e * kb;
    this.childLines = 4L + (long) (fanout - 1) * kb;
    if (InPageWidths.linesFor(widths.leafNodes(), w, x, fanout) > pageBytes / LINE - 1) {
      throw new IllegalArgumentException(widths + " does not fit a " + pageBytes + "-byte page");
    }
  }

  /** The format with widths {@code w}, {@code x} evaluated for this page, key and value width. */
  public static DiskFirstFormat of(int pageBytes, int keyBytes, int valueBytes, int w, int x) {
    InPageWidths widths = InPageWidths.evaluate(pageBytes, keyBytes, valueBytes, w, x, 1, 1);
    if (widths == null) {
      throw new IllegalArgumentException("no in-page tree of " + w + "-line non-leaf and " + x
          + "-line leaf nodes fits a " + pageBytes + "-byte page");
    }
    return new DiskFirstFormat(pageBytes, keyBytes, valueBytes, widths);
  }

  public InPageWidths widths() {
    return widths;
  }

  @Override
  public int capacity() {
    return widths.pageFanout();
  }

  @Override
  public int reorganizeLimit() {
    return widths.pageFanout() - widths.leafNodes();
  }

  private static long handle(int line, int index) {
    return ((long) line << 16) | index;
  }

  private static int lineOf(long h) {
    return (int) (h >>> 16);
  }

  private static int indexOf(long h) {
    return (int) (h & 0xFFFF);
  }

  private static int u16(MemorySegment s, long at) {
    return s.get(SHORT, at) & 0xFFFF;
  }

  private static void put16(MemorySegment s, long at, int v) {
    s.set(SHORT, at, (short) v);
  }

  private long node(long base, int line) {
    return base + (long) line * LINE;
  }

  private long leafKey(long node, int i) {
    return node + 4 + (long) i * kb;
  }

  private long leafValue(long node, int i) {
    return node + leafValues + (long) i * vb;
  }

  @Override
  public void build(MemorySegment s, long base, long[] keys, long[] values, int from, int n) {
    startBuild(s, base, n);
    int leaves = n == 0 ? 1 : Math.min(widths.leafNodes(), n);
    int[] lines = new int[leaves];
    long[] maxKeys = new long[leaves];
    int at = from;
    for (int j = 0; j < leaves; j++) {
      int line = 1 + j * x;
      int c = (int) ((long) n * (j + 1) / leaves - (long) n * j / leaves);
      long nd = node(base, line);
      put16(s, nd, c);
      put16(s, nd + 2, j + 1 < leaves ? line + x : 0);
      for (int i = 0; i < c; i++, at++) {
        PageFormat.put(s, leafKey(nd, i), kb, keys[at]);
        PageFormat.put(s, leafValue(nd, i), vb, values[at]);
      }
      lines[j] = line;
      maxKeys[j] = c > 0 ? keys[at - 1] : 0;
    }
    put16(s, base + FIRST_LEAF, 1);
    put16(s, base + LAST_LEAF, lines[leaves - 1]);
    put16(s, base + LEAF_NODES, leaves);
    int next = 1 + leaves * x;
    int levels = 1;
    int count = leaves;
    while (count > 1) {
      int parents = (count + fanout - 1) / fanout;
      for (int p = 0; p < parents; p++) {
        int lo = p * fanout;
        int hi = Math.min(count, lo + fanout);
        long nd = node(base, next);
        put16(s, nd, hi - lo - 1);
        for (int i = lo; i < hi; i++) {
          if (i + 1 < hi) {
            PageFormat.put(s, nd + 4 + (long) (i - lo) * kb, kb, maxKeys[i]);
          }
          put16(s, nd + childLines + 2L * (i - lo), lines[i]);
        }
        lines[p] = next;
        maxKeys[p] = maxKeys[hi - 1];
        next += w;
      }
      count = parents;
      levels++;
    }
    put16(s, base + ROOT, lines[0]);
    put16(s, base + LEVELS, levels);
    s.set(INT, base + COUNT, n);
  }

  /** The leaf node the in-page search for {@code key} ends in. */
  private int descend(MemorySegment s, long base, long key, boolean strict) {
    int line = u16(s, base + ROOT);
    int levels = Math.min(u16(s, base + LEVELS), MAX_LEVELS);
    long folded = 0;
    for (int level = levels; level > 1; level--) {
      long nd = node(base, line);
      int lo = 0;
      int hi = u16(s, nd);
      folded += LineFetch.touch(s, nd, 4L + (long) hi * kb); // fetch the node's key lines together
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        long k = PageFormat.getKey(s, nd + 4 + (long) mid * kb, kb);
        if (strict ? k > key : k >= key) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      line = u16(s, nd + childLines + 2L * lo);
    }
    LineFetch.consume(folded);
    return line;
  }

  private int leafSearch(MemorySegment s, long nd, long key, boolean strict) {
    int lo = 0;
    int hi = u16(s, nd);
    LineFetch.consume(LineFetch.touch(s, nd, 4L + (long) hi * kb)); // the leaf node's key lines together
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      long k = PageFormat.getKey(s, leafKey(nd, mid), kb);
      if (strict ? k > key : k >= key) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  private long bound(MemorySegment s, long base, long key, boolean strict) {
    int line = descend(s, base, key, strict);
    long nd = node(base, line);
    int i = leafSearch(s, nd, key, strict);
    if (i < u16(s, nd)) {
      return handle(line, i);
    }
    return nextNonEmpty(s, base, line);
  }

  private long nextNonEmpty(MemorySegment s, long base, int line) {
    for (int guard = u16(s, base + LEAF_NODES); guard > 0; guard--) {
      line = u16(s, node(base, line) + 2);
      if (line == 0) {
        return END;
      }
      if (u16(s, node(base, line)) > 0) {
        return handle(line, 0);
      }
    }
    return END;
  }

  @Override
  public long lowerBound(MemorySegment s, long base, long key) {
    return bound(s, base, key, false);
  }

  @Override
  public long upperBound(MemorySegment s, long base, long key) {
    return bound(s, base, key, true);
  }

  @Override
  public long insertionPoint(MemorySegment s, long base, long key) {
    int line = descend(s, base, key, true);
    return handle(line, leafSearch(s, node(base, line), key, true));
  }

  @Override
  public long first(MemorySegment s, long base) {
    int line = u16(s, base + FIRST_LEAF);
    if (u16(s, node(base, line)) > 0) {
      return handle(line, 0);
    }
    return nextNonEmpty(s, base, line);
  }

  @Override
  public long last(MemorySegment s, long base) {
    int line = u16(s, base + LAST_LEAF);
    int c = u16(s, node(base, line));
    return c > 0 ? handle(line, c - 1) : super.last(s, base); // empty last node: walk
  }

  @Override
  public long next(MemorySegment s, long base, long h) {
    int line = lineOf(h);
    int i = indexOf(h) + 1;
    if (i < u16(s, node(base, line))) {
      return handle(line, i);
    }
    return nextNonEmpty(s, base, line);
  }

  @Override
  public long key(MemorySegment s, long base, long h) {
    return PageFormat.getKey(s, leafKey(node(base, lineOf(h)), indexOf(h)), kb);
  }

  @Override
  public long value(MemorySegment s, long base, long h) {
    return PageFormat.getKey(s, leafValue(node(base, lineOf(h)), indexOf(h)), vb);
  }

  @Override
  public void setValue(MemorySegment s, long base, long h, long value) {
    PageFormat.put(s, leafValue(node(base, lineOf(h)), indexOf(h)), vb, value);
  }

  @Override
  public boolean insertAt(MemorySegment s, long base, long h, long key, long value) {
    long nd = node(base, lineOf(h));
    int i = indexOf(h);
    int c = u16(s, nd);
    if (c >= e) {
      return false;
    }
    if (i < c) {
      MemorySegment.copy(s, leafKey(nd, i), s, leafKey(nd, i + 1), (long) (c - i) * kb);
      MemorySegment.copy(s, leafValue(nd, i), s, leafValue(nd, i + 1), (long) (c - i) * vb);
    }
    PageFormat.put(s, leafKey(nd, i), kb, key);
    PageFormat.put(s, leafValue(nd, i), vb, value);
    put16(s, nd, c + 1);
    s.set(INT, base + COUNT, s.get(INT, base + COUNT) + 1);
    return true;
  }

  @Override
  public void remove(MemorySegment s, long base, long h) {
    long nd = node(base, lineOf(h));
    int i = indexOf(h);
    int c = u16(s, nd);
    if (i + 1 < c) {
      MemorySegment.copy(s, leafKey(nd, i + 1), s, leafKey(nd, i), (long) (c - i - 1) * kb);
      MemorySegment.copy(s, leafValue(nd, i + 1), s, leafValue(nd, i), (long) (c - i - 1) * vb);
    }
    put16(s, nd, c - 1);
    s.set(INT, base + COUNT, s.get(INT, base + COUNT) - 1);
  }

  @Override
  public int rank(MemorySegment s, long base, long h) {
    int target = lineOf(h);
    int rank = 0;
    int line = u16(s, base + FIRST_LEAF);
    for (int guard = u16(s, base + LEAF_NODES); guard > 0 && line != target && line != 0; guard--) {
      rank += u16(s, node(base, line));
      line = u16(s, node(base, line) + 2);
    }
    return rank + indexOf(h);
  }

  @Override
  public void check(MemorySegment s, long base) {
    int levels = u16(s, base + LEVELS);
    if (levels < 1 || levels > MAX_LEVELS) {
      throw new IllegalStateException("in-page tree has " + levels + " levels");
    }
    int[] leafOrder = new int[u16(s, base + LEAF_NODES)];
    int[] seen = {0};
    long total = checkNode(s, base, u16(s, base + ROOT), levels, Long.MIN_VALUE, Long.MAX_VALUE, leafOrder, seen);
    if (seen[0] != leafOrder.length) {
      throw new IllegalStateException("in-page tree reaches " + seen[0] + " leaf nodes, header says "
          + leafOrder.length);
    }
    if (total != count(s, base)) {
      throw new IllegalStateException("in-page leaves hold " + total + " entries, header says " + count(s, base));
    }
    int line = u16(s, base + FIRST_LEAF);
    for (int j = 0; j < leafOrder.length; j++) {
      if (line != leafOrder[j]) {
        throw new IllegalStateException("leaf node list reaches line " + line + " where the tree has "
            + leafOrder[j]);
      }
      line = u16(s, node(base, line) + 2);
    }
    if (line != 0 || u16(s, base + LAST_LEAF) != leafOrder[leafOrder.length - 1]) {
      throw new IllegalStateException("leaf node list does not end at the last leaf node");
    }
  }

  private long checkNode(MemorySegment s, long base, int line, int level, long lo, long hi, int[] leafOrder,
      int[] seen) {
    if (line < 1 || (long) (line + (level == 1 ? x : w)) * LINE > pageBytes) {
      throw new IllegalStateException("in-page node at line " + line + " outside the page");
    }
    long nd = node(base, line);
    int c = u16(s, nd);
    if (level == 1) {
      if (c > e) {
        throw new IllegalStateException("leaf node at line " + line + " holds " + c + " of " + e);
      }
      long previous = lo;
      for (int i = 0; i < c; i++) {
        long k = PageFormat.getKey(s, leafKey(nd, i), kb);
        if (k < previous || k > hi) {
          throw new IllegalStateException("leaf node at line " + line + " key " + k + " at " + i
              + " out of order or outside [" + lo + ", " + hi + "]");
        }
        previous = k;
      }
      if (seen[0] >= leafOrder.length) {
        throw new IllegalStateException("more leaf nodes than the header's " + leafOrder.length);
      }
      leafOrder[seen[0]++] = line;
      return c;
    }
    if (c >= fanout) {
      throw new IllegalStateException("non-leaf node at line " + line + " has " + c + " keys of " + (fanout - 1));
    }
    long total = 0;
    long low = lo;
    for (int i = 0; i <= c; i++) {
      long high = i < c ? PageFormat.getKey(s, nd + 4 + (long) i * kb, kb) : hi;
      if (high < low) {
        throw new IllegalStateException("non-leaf node at line " + line + " separators out of order");
      }
      total += checkNode(s, base, u16(s, nd + childLines + 2L * i), level - 1, low, high, leafOrder, seen);
      low = high;
    }
    return total;
  }

  @Override
  public String toString() {
    return "DiskFirstFormat[" + pageBytes + " B pages, w=" + w + " x=" + x + " lines, " + widths.levels()
        + " levels, " + capacity() + " entries]";
  }
}
