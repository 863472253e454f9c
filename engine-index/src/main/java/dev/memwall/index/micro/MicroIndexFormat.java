package dev.memwall.index.micro;

import dev.memwall.index.page.LineFetch;
import dev.memwall.index.page.PageFormat;
import dev.memwall.index.page.RankedPageFormat;
import java.lang.foreign.MemorySegment;

/**
 * The micro-indexing page baseline (seed 002 section 3.4.1): a contiguous key array and value
 * array per page, divided into sub-arrays of {@code s} keys ({@code subarrayLines} cache lines of
 * keys), and a micro-index holding the first key of every sub-array. A search binary-searches the
 * micro-index, then one sub-array. Insertion and deletion shift the arrays as a disk-optimized
 * B+-tree with array pages does, then rebuild the micro-index from the first affected sub-array.
 *
 * <pre>
 * header: [0,4) checksum [4,6) kind [8,12) entries
 * body:   micro-index (line aligned) | keys (line aligned) | values
 * </pre>
 *
 * <p>{@link #chooseSubarrayLines} applies the thesis's goal G to the sub-array size: the largest
 * page fan-out among sizes whose search cost (micro-index + sub-array + value line) is within 10%
 * of the best.
 *
 * <p>As in the thesis's implementation, the micro-index and the chosen sub-array are fetched
 * pB+-tree style ({@link LineFetch}: their lines loaded back to back) before they are searched.
 *
 * <p>Thread safety: immutable.
 */
public final class MicroIndexFormat extends RankedPageFormat {
  private static final int LINE = 64;

  private final int sub;
  private final int subLines;
  private final int capacity;
  private final long microAt;
  private final long keysAt;
  private final long valuesAt;

  /**
   * Pages with sub-arrays of {@code subarrayLines} lines of keys.
   *
   * @throws IllegalArgumentException if the sub-array size is outside 1 .. 32 lines
   */
  public MicroIndexFormat(int pageBytes, int keyBytes, int valueBytes, int subarrayLines) {
    super(pageBytes, keyBytes, valueBytes);
    if (subarrayLines < 1 || subarrayLines > 32) {
      throw new IllegalArgumentException("sub-array size must be 1 .. 32 lines, got " + subarrayLines);
    }
    this.subLines = subarrayLines;
    this.sub = subarrayLines * LINE / keyBytes;
    int c = (pageBytes - HEADER_BYTES) / (kb + vb);
    while (c > 0 && layoutBytes(c) > pageBytes) {
      c--;
    }
    this.capacity = c;
    this.microAt = HEADER_BYTES;
    this.keysAt = microAt + align((long) subarrays(c) * kb);
    this.valuesAt = keysAt + align((long) c * kb);
  }

  private int subarrays(int entries) {
    return (entries + sub - 1) / sub;
  }

  private static long align(long bytes) {
    return (bytes + LINE - 1) / LINE * LINE;
  }

  private long layoutBytes(int c) {
    return HEADER_BYTES + align((long) subarrays(c) * kb) + align((long) c * kb) + (long) c * vb;
  }

  /** Goal G over sub-array sizes of 1 .. 32 lines, with T1 and Tnext in any one unit. */
  public static int chooseSubarrayLines(int pageBytes, int keyBytes, int valueBytes, double t1, double tnext) {
    double[] cost = new double[33];
    int[] fanout = new int[33];
    double best = Double.POSITIVE_INFINITY;
    for (int lines = 1; lines <= 32; lines++) {
      MicroIndexFormat f = new MicroIndexFormat(pageBytes, keyBytes, valueBytes, lines);
      long microLines = Math.max(1, align((long) f.subarrays(f.capacity) * keyBytes) / LINE);
      cost[lines] = t1 + (microLines - 1) * tnext + t1 + (lines - 1) * tnext + t1;
      fanout[lines] = f.capacity;
      best = Math.min(best, cost[lines]);
    }
    int chosen = 0;
    for (int lines = 1; lines <= 32; lines++) {
      if (cost[lines] <= 1.10 * best && (chosen == 0 || fanout[lines] > fanout[chosen]
          || (fanout[lines] == fanout[chosen] && cost[lines] < cost[chosen]))) {
        chosen = lines;
      }
    }
    return chosen;
  }

  public int subarrayLines() {
    return subLines;
  }

  @Override
  public int capacity() {
    return capacity;
  }

  private long keyAt(long base, long i) {
    return base + keysAt + i * kb;
  }

  private long valueAt(long base, long i) {
    return base + valuesAt + i * vb;
  }

  @Override
  public void build(MemorySegment s, long base, long[] keys, long[] values, int from, int n) {
    startBuild(s, base, n);
    for (int i = 0; i < n; i++) {
      PageFormat.put(s, keyAt(base, i), kb, keys[from + i]);
      PageFormat.put(s, valueAt(base, i), vb, values[from + i]);
    }
    s.set(INT, base + COUNT, n);
    rebuildMicroIndex(s, base, 0);
  }

  private void rebuildMicroIndex(MemorySegment s, long base, int fromEntry) {
    int n = count(s, base);
    for (int j = fromEntry / sub; j < subarrays(n); j++) {
      PageFormat.put(s, base + microAt + (long) j * kb, kb, PageFormat.getKey(s, keyAt(base, (long) j * sub), kb));
    }
  }

  // Specialized binary searches (not shared with the other formats, such as SlottedPageFormat's
  // twin): a shared loop would reach each probed key through a per-key virtual call.
  @Override
  protected int search(MemorySegment s, long base, long key, boolean strict) {
    int n = count(s, base);
    int lo = 0;
    int hi = subarrays(Math.min(Math.max(n, 0), capacity));
    long folded = LineFetch.touch(s, base + microAt, (long) hi * kb); // the micro-index lines together
    while (lo < hi) { // first sub-array whose first key passes
      int mid = (lo + hi) >>> 1;
      long k = PageFormat.getKey(s, base + microAt + (long) mid * kb, kb);
      if (strict ? k > key : k >= key) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    if (lo == 0) {
      LineFetch.consume(folded);
      return 0;
    }
    int start = (lo - 1) * sub;
    int end = Math.min(n, start + sub);
    LineFetch.consume(folded + LineFetch.touch(s, keyAt(base, start), (long) (end - start) * kb));
    int a = start;
    int b = end;
    while (a < b) {
      int mid = (a + b) >>> 1;
      long k = PageFormat.getKey(s, keyAt(base, mid), kb);
      if (strict ? k > key : k >= key) {
        b = mid;
      } else {
        a = mid + 1;
      }
    }
    return a;
  }

  @Override
  public long key(MemorySegment s, long base, long h) {
    return PageFormat.getKey(s, keyAt(base, h), kb);
  }

  @Override
  public long value(MemorySegment s, long base, long h) {
    return PageFormat.getKey(s, valueAt(base, h), vb);
  }

  @Override
  public void setValue(MemorySegment s, long base, long h, long value) {
    PageFormat.put(s, valueAt(base, h), vb, value);
  }

  @Override
  public boolean insertAt(MemorySegment s, long base, long h, long key, long value) {
    int n = count(s, base);
    if (n >= capacity) {
      return false;
    }
    if (h < n) {
      MemorySegment.copy(s, keyAt(base, h), s, keyAt(base, h + 1), (n - h) * kb);
      MemorySegment.copy(s, valueAt(base, h), s, valueAt(base, h + 1), (n - h) * vb);
    }
    PageFormat.put(s, keyAt(base, h), kb, key);
    PageFormat.put(s, valueAt(base, h), vb, value);
    s.set(INT, base + COUNT, n + 1);
    rebuildMicroIndex(s, base, (int) h);
    return true;
  }

  @Override
  public void remove(MemorySegment s, long base, long h) {
    int n = count(s, base);
    if (h + 1 < n) {
      MemorySegment.copy(s, keyAt(base, h + 1), s, keyAt(base, h), (n - h - 1) * kb);
      MemorySegment.copy(s, valueAt(base, h + 1), s, valueAt(base, h), (n - h - 1) * vb);
    }
    s.set(INT, base + COUNT, n - 1);
    rebuildMicroIndex(s, base, (int) h);
  }

  @Override
  public void check(MemorySegment s, long base) {
    int n = count(s, base);
    if (n < 0 || n > capacity) {
      throw new IllegalStateException("micro-indexed page with " + n + " entries of " + capacity);
    }
    for (int i = 1; i < n; i++) {
      if (key(s, base, i) < key(s, base, i - 1)) {
        throw new IllegalStateException("key " + key(s, base, i) + " at " + i + " after " + key(s, base, i - 1));
      }
    }
    for (int j = 0; j < subarrays(n); j++) {
      if (PageFormat.getKey(s, base + microAt + (long) j * kb, kb) != key(s, base, (long) j * sub)) {
        throw new IllegalStateException("micro-index entry " + j + " is not its sub-array's first key");
      }
    }
  }

  @Override
  public String toString() {
    return "MicroIndexFormat[" + pageBytes + " B pages, sub-arrays of " + subLines + " lines, " + capacity
        + " entries]";
  }
}
