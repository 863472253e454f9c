package dev.memwall.index.slotted;

import dev.memwall.index.page.PageFormat;
import dev.memwall.index.page.RankedPageFormat;
import java.lang.foreign.MemorySegment;

/**
 * The page of the classic disk-optimized B+-tree baseline (seed 002 section 3.4.1): entries
 * ({@code key, value} records) stored anywhere in the page, and a slot array of 2-byte record
 * offsets at the page's end, in key order. A search binary-searches the slot array, so every probe
 * touches a slot and then a record elsewhere in the page: the cache behaviour the fpB+-tree is
 * measured against.
 *
 * <pre>
 * header: [0,4) checksum [4,6) kind [8,12) entries [12,14) free-space start [14,16) garbage bytes
 * body:   records from byte 64 up; slot i (record offset) at pageBytes - 2(i+1), slot 0 at the end
 * </pre>
 *
 * <p>Insertion appends the record at the free-space start and moves the slots after it; deletion
 * moves the slots and leaves the record as garbage, which a rebuild (the tree's reorganization)
 * compacts.
 *
 * <p>Thread safety: immutable.
 */
public final class SlottedPageFormat extends RankedPageFormat {
  private static final long FREE = 12;
  private static final long GARBAGE = 14;

  private final int record;
  private final int capacity;

  public SlottedPageFormat(int pageBytes, int keyBytes, int valueBytes) {
    super(pageBytes, keyBytes, valueBytes);
    this.record = keyBytes + valueBytes;
    this.capacity = (pageBytes - HEADER_BYTES) / (record + 2);
  }

  @Override
  public int capacity() {
    return capacity;
  }

  private long slot(long base, long i) {
    return base + pageBytes - 2 * (i + 1);
  }

  private long recordAt(MemorySegment s, long base, long i) {
    return base + (s.get(SHORT, slot(base, i)) & 0xFFFF);
  }

  @Override
  public void build(MemorySegment s, long base, long[] keys, long[] values, int from, int n) {
    startBuild(s, base, n);
    int at = HEADER_BYTES;
    for (int i = 0; i < n; i++) {
      PageFormat.put(s, base + at, kb, keys[from + i]);
      PageFormat.put(s, base + at + kb, vb, values[from + i]);
      s.set(SHORT, slot(base, i), (short) at);
      at += record;
    }
    s.set(SHORT, base + FREE, (short) at);
    s.set(INT, base + COUNT, n);
  }

  // Specialized binary search (not shared with the other formats, such as MicroIndexFormat's twin):
  // a shared loop would reach each probed key through a per-key virtual call.
  @Override
  protected int search(MemorySegment s, long base, long key, boolean strict) {
    int lo = 0;
    int hi = count(s, base);
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      long k = PageFormat.getKey(s, recordAt(s, base, mid), kb);
      if (strict ? k > key : k >= key) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  @Override
  public long key(MemorySegment s, long base, long h) {
    return PageFormat.getKey(s, recordAt(s, base, h), kb);
  }

  @Override
  public long value(MemorySegment s, long base, long h) {
    return PageFormat.getKey(s, recordAt(s, base, h) + kb, vb);
  }

  @Override
  public void setValue(MemorySegment s, long base, long h, long value) {
    PageFormat.put(s, recordAt(s, base, h) + kb, vb, value);
  }

  @Override
  public boolean insertAt(MemorySegment s, long base, long h, long key, long value) {
    int n = count(s, base);
    int free = s.get(SHORT, base + FREE) & 0xFFFF;
    if (free + record > pageBytes - 2L * (n + 1)) {
      return false; // no room left: the tree compacts (rebuilds) or splits the page
    }
    if (h < n) {
      // slots h .. n-1 move one place towards the page start
      MemorySegment.copy(s, slot(base, n - 1), s, slot(base, n), 2L * (n - h));
    }
    PageFormat.put(s, base + free, kb, key);
    PageFormat.put(s, base + free + kb, vb, value);
    s.set(SHORT, slot(base, h), (short) free);
    s.set(SHORT, base + FREE, (short) (free + record));
    s.set(INT, base + COUNT, n + 1);
    return true;
  }

  @Override
  public void remove(MemorySegment s, long base, long h) {
    int n = count(s, base);
    if (h + 1 < n) {
      MemorySegment.copy(s, slot(base, n - 1), s, slot(base, n - 2), 2L * (n - 1 - h));
    }
    s.set(SHORT, base + GARBAGE, (short) ((s.get(SHORT, base + GARBAGE) & 0xFFFF) + record));
    s.set(INT, base + COUNT, n - 1);
  }

  @Override
  public void check(MemorySegment s, long base) {
    int n = count(s, base);
    int free = s.get(SHORT, base + FREE) & 0xFFFF;
    if (n < 0 || n > capacity || free < HEADER_BYTES || free > pageBytes - 2L * n) {
      throw new IllegalStateException("slotted page with " + n + " entries and free space at " + free);
    }
    long previous = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      long at = recordAt(s, base, i) - base;
      if (at < HEADER_BYTES || at + record > free) {
        throw new IllegalStateException("slot " + i + " points to " + at + " outside the records");
      }
      long k = key(s, base, i);
      if (k < previous) {
        throw new IllegalStateException("slot " + i + " key " + k + " after " + previous);
      }
      previous = k;
    }
  }

  @Override
  public String toString() {
    return "SlottedPageFormat[" + pageBytes + " B pages, " + capacity + " entries]";
  }
}
