package dev.memwall.index.flash;

import dev.memwall.index.page.AbstractPageFormat;
import dev.memwall.index.page.PageFormat;
import java.lang.foreign.MemorySegment;

/**
 * The flash-aware B-tree leaf of Ross's EWOM paper (DaMoN 2008, section 5.1): a leaf that absorbs
 * inserts and deletes by turning bits from 1 to 0, so that under the EWOM model
 * ({@link dev.memwall.index.page.EwomCounts}) only a rewrite of the leaf is a page-write step.
 *
 * <pre>
 * header: [0,4) checksum [4,6) kind [8,12) entries at the last rewrite [16,20) sorted prefix P
 * body:   written bits (C bits) | live bits (C bits) | C entry slots of (key, value), line aligned
 * </pre>
 *
 * <ul>
 *   <li>A rewrite ({@link #build}: a split or the tree's reorganization) stores the entries sorted
 *       in slots {@code [0, P)} and leaves every other byte of the body erased (all ones).
 *   <li>An insert writes its entry into the first erased slot and clears the slot's written bit: it
 *       only clears bits. The slots after the prefix hold the inserts since the rewrite in
 *       insertion order; the written bits are a unary counter of the slots in use, so no binary
 *       count is rewritten (the header's count is only written by a rewrite).
 *   <li>A delete clears the entry's live bit.
 *   <li>An insert into a leaf with no erased slot left fails ({@link #insertAt} returns false) and
 *       the tree rewrites the page, or splits it when more than {@link #reorganizeLimit()} entries
 *       are live: the page-write step the paper amortizes over the page's free slots.
 * </ul>
 *
 * <p><b>Order.</b> Entries are ordered by key, equal keys by slot: the prefix keeps the insertion
 * order of equal keys when rewritten, and a later insert takes a later slot, so this is the
 * insertion order {@link PageFormat} asks for. A handle is a slot number. The new entry of
 * {@link #insertAt} goes where that order puts it, which is the place {@link #insertionPoint}
 * names; the handle passed is not needed (the disk tree passes only insertion points to leaves).
 *
 * <p><b>Search.</b> A binary search of the prefix and a linear pass over the inserts since the
 * rewrite: the paper's "append-only with a sorted prefix" leaf. The paper's further sorted offset
 * arrays over groups of {@code c, kc, k^2c...} inserts cut that pass to {@code O(log^2 m)}
 * comparisons; they change search time and take about 6% of the page, not which writes clear
 * bits, and are not built here.
 *
 * <p><b>Not modelled.</b> The paper's per-leaf log sequence number (a generalized counter,
 * {@link EwomCounter}): a memwall page has none, commits are numbered in the page file's commit
 * records.
 *
 * <p>Readers of a torn page stay inside the page: the prefix length and slot counts are clamped
 * to the capacity. Thread safety: immutable.
 */
public final class FlashLeafFormat extends AbstractPageFormat {
  private static final long PREFIX = 16;
  private static final int LINE = 64;

  private final int record;
  private final int capacity;
  private final int words;
  private final long writtenAt;
  private final long liveAt;
  private final long slotsAt;

  /**
   * @throws IllegalArgumentException if a key or value width is not 4 or 8 bytes
   */
  public FlashLeafFormat(int pageBytes, int keyBytes, int valueBytes) {
    super(pageBytes, keyBytes, valueBytes);
    this.record = keyBytes + valueBytes;
    int c = (pageBytes - HEADER_BYTES) / record;
    while (c > 0 && layoutBytes(c) > pageBytes) {
      c--;
    }
    this.capacity = c;
    this.words = (c + 63) / 64;
    this.writtenAt = HEADER_BYTES;
    this.liveAt = writtenAt + 8L * words;
    this.slotsAt = align(liveAt + 8L * words);
  }

  private static long align(long bytes) {
    return (bytes + LINE - 1) / LINE * LINE;
  }

  private long layoutBytes(int c) {
    long w = (c + 63) / 64;
    return align(HEADER_BYTES + 16 * w) + (long) c * record;
  }

  @Override
  public int capacity() {
    return capacity;
  }

  /** A rewrite leaves at least half the slots erased; a fuller page is better split. */
  @Override
  public int reorganizeLimit() {
    return capacity / 2;
  }

  // ---- bits and slots ----------------------------------------------------------------------

  private long slot(long base, long i) {
    return base + slotsAt + i * record;
  }

  private static boolean bit(MemorySegment s, long at, long i) {
    return (s.get(LONG, at + 8 * (i >>> 6)) & (1L << i)) != 0;
  }

  private static void clearBit(MemorySegment s, long at, long i) {
    long word = at + 8 * (i >>> 6);
    s.set(LONG, word, s.get(LONG, word) & ~(1L << i));
  }

  /** Ones among the first {@code n} bits at {@code at}. */
  private static int ones(MemorySegment s, long at, int n) {
    int ones = 0;
    for (int w = 0; w < n >>> 6; w++) {
      ones += Long.bitCount(s.get(LONG, at + 8L * w));
    }
    if ((n & 63) != 0) {
      ones += Long.bitCount(s.get(LONG, at + 8L * (n >>> 6)) & ((1L << n) - 1));
    }
    return ones;
  }

  /** Slots in use (written since erased): the written bits' zeros, a unary count. */
  private int used(MemorySegment s, long base) {
    return capacity - ones(s, base + writtenAt, capacity);
  }

  private int prefix(MemorySegment s, long base, int used) {
    return Math.clamp(s.get(INT, base + PREFIX), 0, used);
  }

  private boolean live(MemorySegment s, long base, long i) {
    return bit(s, base + liveAt, i);
  }

  @Override
  public long key(MemorySegment s, long base, long h) {
    return PageFormat.getKey(s, slot(base, h), kb);
  }

  @Override
  public long value(MemorySegment s, long base, long h) {
    return PageFormat.getKey(s, slot(base, h) + kb, vb);
  }

  @Override
  public void setValue(MemorySegment s, long base, long h, long value) {
    PageFormat.put(s, slot(base, h) + kb, vb, value);
  }

  /** Whether entry {@code (k, i)} orders before {@code (key, slot)}. */
  private static boolean before(long k, long i, long key, long slot) {
    return k < key || (k == key && i < slot);
  }

  // ---- writing -----------------------------------------------------------------------------

  @Override
  public void build(MemorySegment s, long base, long[] keys, long[] values, int from, int n) {
    startBuild(s, base, n);
    s.asSlice(base + HEADER_BYTES, pageBytes - HEADER_BYTES).fill((byte) 0xFF);
    for (int i = 0; i < n; i++) {
      PageFormat.put(s, slot(base, i), kb, keys[from + i]);
      PageFormat.put(s, slot(base, i) + kb, vb, values[from + i]);
      clearBit(s, base + writtenAt, i);
    }
    s.set(INT, base + PREFIX, n);
    s.set(INT, base + COUNT, n);
  }

  /** Appends the entry in the first erased slot; the handle is not needed (see the class comment). */
  @Override
  public boolean insertAt(MemorySegment s, long base, long h, long key, long value) {
    int u = used(s, base);
    if (u >= capacity) {
      return false;
    }
    PageFormat.put(s, slot(base, u), kb, key);
    PageFormat.put(s, slot(base, u) + kb, vb, value);
    clearBit(s, base + writtenAt, u);
    return true;
  }

  @Override
  public void remove(MemorySegment s, long base, long h) {
    clearBit(s, base + liveAt, h);
  }

  // ---- reading -----------------------------------------------------------------------------

  @Override
  public int count(MemorySegment s, long base) {
    return ones(s, base + liveAt, used(s, base));
  }

  /** The first live entry ordered after {@code (key, slot)}, or {@link #END}. */
  private long successor(MemorySegment s, long base, long key, long slot) {
    int u = used(s, base);
    int p = prefix(s, base, u);
    int lo = 0;
    int hi = p;
    while (lo < hi) { // first prefix entry after (key, slot): the prefix is sorted by (key, slot)
      int mid = (lo + hi) >>> 1;
      if (before(key(s, base, mid), mid, key, slot) || (key(s, base, mid) == key && mid == slot)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    while (lo < p && !live(s, base, lo)) {
      lo++;
    }
    long best = lo < p ? lo : END;
    long bestKey = best == END ? 0 : key(s, base, best);
    for (int j = p; j < u; j++) {
      if (!live(s, base, j)) {
        continue;
      }
      long k = key(s, base, j);
      if (before(key, slot, k, j) && (best == END || before(k, j, bestKey, best))) {
        best = j;
        bestKey = k;
      }
    }
    return best;
  }

  @Override
  public long lowerBound(MemorySegment s, long base, long key) {
    return successor(s, base, key, -1);
  }

  @Override
  public long upperBound(MemorySegment s, long base, long key) {
    return successor(s, base, key, Long.MAX_VALUE);
  }

  /** The first entry with a greater key (or {@link #END}): where the order puts a new entry. */
  @Override
  public long insertionPoint(MemorySegment s, long base, long key) {
    return upperBound(s, base, key);
  }

  @Override
  public long first(MemorySegment s, long base) {
    return successor(s, base, Long.MIN_VALUE, -1);
  }

  @Override
  public long next(MemorySegment s, long base, long h) {
    return successor(s, base, key(s, base, h), h);
  }

  @Override
  public long last(MemorySegment s, long base) {
    int u = used(s, base);
    int p = prefix(s, base, u);
    long best = END;
    long bestKey = 0;
    for (int i = p - 1; i >= 0; i--) {
      if (live(s, base, i)) {
        best = i;
        bestKey = key(s, base, i);
        break;
      }
    }
    for (int j = p; j < u; j++) {
      if (live(s, base, j)) {
        long k = key(s, base, j);
        if (best == END || !before(k, j, bestKey, best)) {
          best = j;
          bestKey = k;
        }
      }
    }
    return best;
  }

  @Override
  public int rank(MemorySegment s, long base, long h) {
    if (h == END) {
      return count(s, base);
    }
    long key = key(s, base, h);
    int u = used(s, base);
    int rank = 0;
    for (int i = 0; i < u; i++) {
      if (i != h && live(s, base, i) && before(key(s, base, i), i, key, h)) {
        rank++;
      }
    }
    return rank;
  }

  @Override
  public int flatten(MemorySegment s, long base, long[] keys, long[] values) {
    int u = used(s, base);
    int p = prefix(s, base, u);
    int[] added = new int[u - p];
    int m = 0;
    for (int j = p; j < u; j++) {
      if (live(s, base, j)) {
        added[m++] = j;
      }
    }
    SlotSort.byKey(added, m, j -> key(s, base, j));
    int n = 0;
    int a = 0;
    for (int i = 0; i < p || a < m; ) {
      while (i < p && !live(s, base, i)) {
        i++;
      }
      long take;
      if (i < p && (a == m || key(s, base, i) <= key(s, base, added[a]))) {
        take = i++;
      } else if (a < m) {
        take = added[a++];
      } else {
        break;
      }
      keys[n] = key(s, base, take);
      values[n] = value(s, base, take);
      n++;
    }
    return n;
  }

  @Override
  public void check(MemorySegment s, long base) {
    int u = used(s, base);
    for (int i = 0; i < capacity; i++) {
      if (bit(s, base + writtenAt, i) != (i >= u)) {
        throw new IllegalStateException("flash leaf: written bit of slot " + i + " out of order (" + u
            + " slots in use)");
      }
    }
    int p = s.get(INT, base + PREFIX);
    if (p < 0 || p > u) {
      throw new IllegalStateException("flash leaf: sorted prefix of " + p + " slots, " + u + " in use");
    }
    for (int i = 1; i < p; i++) {
      if (key(s, base, i) < key(s, base, i - 1)) {
        throw new IllegalStateException("flash leaf: prefix key " + key(s, base, i) + " at " + i + " after "
            + key(s, base, i - 1));
      }
    }
    for (int i = u; i < capacity; i++) {
      if (!live(s, base, i)) {
        throw new IllegalStateException("flash leaf: unused slot " + i + " is marked deleted");
      }
      for (long b = slot(base, i); b < slot(base, i + 1); b += Long.BYTES / 2) {
        if (s.get(INT, b) != -1) {
          throw new IllegalStateException("flash leaf: unused slot " + i + " is not erased");
        }
      }
    }
  }

  @Override
  public String toString() {
    return "FlashLeafFormat[" + pageBytes + " B pages, " + capacity + " slots]";
  }
}
