package dev.memwall.index.fpb;

import dev.memwall.index.disk.InPageWidths;
import dev.memwall.index.page.PageFormat;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The byte format of a cache-first fpB+-tree ({@link CacheFirstTree}, seed 002 section 3.3.4):
 * pages of equal node slots, every node (leaf or not) {@link #nodeLines()} cache lines wide, and
 * the goal-G choice of that width ({@link #choose}).
 *
 * <p><b>Page.</b> Line 0 is the page header: bytes {@code [0,4)} the page file's checksum,
 * {@link #PAGE_KIND} the page kind, {@link #FIRST_LEAF} (leaf pages) the slot of the page's first
 * leaf in key order, {@link #USED} the number of used slots, and from {@link #BITMAP} a bitmap of
 * used slots (the in-page space management the thesis uses for prefetching a leaf page's nodes).
 * Slot {@code s} starts at line {@code 1 + s * nodeLines}; a node is addressed by that line.
 *
 * <p><b>Node.</b> A 16-byte header (2-byte entry count, 1-byte in-page level, 1-byte node kind, and
 * for leaves the sibling link: 4-byte logical page and 2-byte line of the next leaf), then all keys,
 * then the values: 8-byte row ids in leaves; in non-leaf nodes the child pointers as 4-byte logical
 * page ids followed by 2-byte line offsets (the thesis's 6-byte pointers), keys before pointers so a
 * search reads the keys' lines first. A non-leaf node holds one entry per child: the upper bound of
 * the child's keys and the child pointer.
 *
 * <p>Thread safety: immutable. Accessors take any segment (a buffer pool frame or a heap image of a
 * page) and stay within {@code [base, base + nodeBytes)} for counts up to the capacity.
 */
public final class CacheFirstFormat {
  public static final int LINE_BYTES = InPageWidths.LINE_BYTES;
  /** Offset of the 2-byte page kind (as {@link PageFormat#KIND}). */
  public static final long PAGE_KIND = PageFormat.KIND;
  public static final long FIRST_LEAF = 6;
  public static final long USED = 8;
  public static final long BITMAP = 16;
  /** Most slots a page's bitmap can track (48 bytes of the header line). */
  public static final int MAX_SLOTS = 384;
  public static final int NODE_HEADER = 16;
  /** Reference tree size for goal G's search cost (the thesis's Figure 3.13 uses 10 million keys). */
  public static final double REFERENCE_ENTRIES = 1e7;

  public static final int NODE_LEAF = 1;
  public static final int NODE_INNER = 2;
  public static final int NODE_LEAF_PARENT = 3;

  private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

  private final int pageBytes;
  private final int keyBytes;
  private final int nodeLines;
  private final int nodeBytes;
  private final int slots;
  private final int leafCapacity;
  private final int innerCapacity;
  private final long rowIdsAt;
  private final long childPagesAt;
  private final long childLinesAt;
  private final short[] slotAtLine; // slotOf by table: no division on the readers' pointer checks

  /**
   * @throws IllegalArgumentException if a page holds fewer than 3 slots, or a node fewer than 2
   *     leaf entries or 3 children
   */
  public CacheFirstFormat(int pageBytes, int keyBytes, int nodeLines) {
    if (keyBytes != 4 && keyBytes != 8) {
      throw new IllegalArgumentException("keys are 4 or 8 bytes, got " + keyBytes);
    }
    this.pageBytes = pageBytes;
    this.keyBytes = keyBytes;
    this.nodeLines = nodeLines;
    this.nodeBytes = nodeLines * LINE_BYTES;
    this.slots = slotsPerPage(pageBytes, nodeLines);
    this.leafCapacity = leafEntries(nodeLines, keyBytes);
    this.innerCapacity = fanout(nodeLines, keyBytes);
    if (slots < 3 || leafCapacity < 2 || innerCapacity < 3) {
      throw new IllegalArgumentException("cache-first nodes of " + nodeLines + " lines in " + pageBytes
          + "-byte pages: " + slots + " slots, " + leafCapacity + " leaf entries, " + innerCapacity
          + " children; need at least 3 slots, 2 entries and 3 children");
    }
    this.rowIdsAt = NODE_HEADER + (long) leafCapacity * keyBytes;
    this.childPagesAt = NODE_HEADER + (long) innerCapacity * keyBytes;
    this.childLinesAt = childPagesAt + (long) innerCapacity * Integer.BYTES;
    this.slotAtLine = new short[pageBytes / LINE_BYTES];
    Arrays.fill(slotAtLine, (short) -1);
    for (int slot = 0; slot < slots; slot++) {
      slotAtLine[lineOf(slot)] = (short) slot;
    }
  }

  static int slotsPerPage(int pageBytes, int nodeLines) {
    return Math.min(MAX_SLOTS, (pageBytes / LINE_BYTES - 1) / nodeLines);
  }

  static int leafEntries(int nodeLines, int keyBytes) {
    return (nodeLines * LINE_BYTES - NODE_HEADER) / (keyBytes + Long.BYTES);
  }

  static int fanout(int nodeLines, int keyBytes) {
    return (nodeLines * LINE_BYTES - NODE_HEADER) / (keyBytes + Integer.BYTES + Short.BYTES);
  }

  /**
   * The goal-G choice of the node width: for every width 1 .. {@value InPageWidths#MAX_LINES}
   * lines, the search cost of a pB+-tree over {@link #REFERENCE_ENTRIES} entries ({@code levels *
   * (T1 + (w - 1) Tnext)}, levels from the leaf and non-leaf fan-outs, fractional so one extra entry
   * does not flip the choice) and the leaf page fan-out {@code slots * leafEntries}; among the widths
   * within 10% of the cheapest, the one with the largest page fan-out (on a tie, the cheaper).
   *
   * @param valueBytes bytes of a leaf value (8: row ids)
   * @throws IllegalArgumentException for latencies that are not positive or a page too small
   */
  public static Choice choose(int pageBytes, int keyBytes, int valueBytes, double t1, double tnext) {
    if (!(t1 > 0) || !(tnext > 0)) {
      throw new IllegalArgumentException("T1 and Tnext must be positive, got " + t1 + " and " + tnext);
    }
    Choice[] all = new Choice[InPageWidths.MAX_LINES];
    double best = Double.POSITIVE_INFINITY;
    int n = 0;
    for (int w = 1; w <= InPageWidths.MAX_LINES; w++) {
      int slots = slotsPerPage(pageBytes, w);
      int leaf = (w * LINE_BYTES - NODE_HEADER) / (keyBytes + valueBytes);
      int fanout = fanout(w, keyBytes);
      if (slots < 3 || leaf < 2 || fanout < 3) {
        continue;
      }
      double levels = 1 + Math.max(0, Math.log(REFERENCE_ENTRIES / leaf) / Math.log(fanout));
      double cost = levels * (t1 + (w - 1) * tnext);
      all[n++] = new Choice(w, slots, leaf, fanout, slots * leaf, cost, cost);
      best = Math.min(best, cost);
    }
    if (n == 0) {
      throw new IllegalArgumentException("no cache-first node fits a " + pageBytes + "-byte page");
    }
    Choice chosen = null;
    for (int i = 0; i < n; i++) {
      Choice c = all[i];
      if (c.cost <= InPageWidths.TOLERANCE * best && (chosen == null || c.pageFanout > chosen.pageFanout
          || (c.pageFanout == chosen.pageFanout && c.cost < chosen.cost))) {
        chosen = c;
      }
    }
    return new Choice(chosen.nodeLines, chosen.slots, chosen.leafEntries, chosen.fanout, chosen.pageFanout,
        chosen.cost, best);
  }

  /**
   * One width evaluated by {@link #choose}.
   *
   * @param nodeLines node width in lines
   * @param slots nodes per page
   * @param leafEntries entries per leaf node
   * @param fanout children per non-leaf node
   * @param pageFanout entries per full leaf page
   * @param cost search cost in the unit of T1
   * @param bestCost the cheapest cost over all widths
   */
  public record Choice(int nodeLines, int slots, int leafEntries, int fanout, int pageFanout, double cost,
      double bestCost) {}

  // ---- geometry ----------------------------------------------------------------------------

  public int pageBytes() {
    return pageBytes;
  }

  public int keyBytes() {
    return keyBytes;
  }

  public int nodeLines() {
    return nodeLines;
  }

  public int nodeBytes() {
    return nodeBytes;
  }

  /** Node slots per page. */
  public int slots() {
    return slots;
  }

  public int leafCapacity() {
    return leafCapacity;
  }

  public int innerCapacity() {
    return innerCapacity;
  }

  /** The first line of slot {@code slot}. */
  public int lineOf(int slot) {
    return 1 + slot * nodeLines;
  }

  /** The slot starting at {@code line}, or -1 if no slot starts there. */
  public int slotOf(int line) {
    return line >= 0 && line < slotAtLine.length ? slotAtLine[line] : -1;
  }

  // ---- page header -------------------------------------------------------------------------

  public int pageKind(MemorySegment s, long page) {
    return s.get(SHORT, page + PAGE_KIND);
  }

  public void setPageKind(MemorySegment s, long page, int kind) {
    s.set(SHORT, page + PAGE_KIND, (short) kind);
  }

  public int firstLeafSlot(MemorySegment s, long page) {
    return s.get(SHORT, page + FIRST_LEAF);
  }

  public void setFirstLeafSlot(MemorySegment s, long page, int slot) {
    s.set(SHORT, page + FIRST_LEAF, (short) slot);
  }

  public int usedSlots(MemorySegment s, long page) {
    return s.get(SHORT, page + USED);
  }

  public boolean slotUsed(MemorySegment s, long page, int slot) {
    byte b = s.get(ValueLayout.JAVA_BYTE, page + BITMAP + (slot >>> 3));
    return (b & (1 << (slot & 7))) != 0;
  }

  /** Marks a free slot used (or a used one free) and keeps the used count. */
  public void setSlotUsed(MemorySegment s, long page, int slot, boolean used) {
    long at = page + BITMAP + (slot >>> 3);
    byte b = s.get(ValueLayout.JAVA_BYTE, at);
    int mask = 1 << (slot & 7);
    if (((b & mask) != 0) == used) {
      throw new IllegalStateException("slot " + slot + " is already " + (used ? "used" : "free"));
    }
    s.set(ValueLayout.JAVA_BYTE, at, (byte) (used ? b | mask : b & ~mask));
    s.set(SHORT, page + USED, (short) (usedSlots(s, page) + (used ? 1 : -1)));
  }

  /** The lowest free slot, or -1 if the page is full. */
  public int freeSlot(MemorySegment s, long page) {
    if (usedSlots(s, page) >= slots) {
      return -1;
    }
    for (int slot = 0; slot < slots; slot++) {
      if (!slotUsed(s, page, slot)) {
        return slot;
      }
    }
    return -1;
  }

  // ---- node header -------------------------------------------------------------------------

  public int count(MemorySegment s, long node) {
    return s.get(SHORT, node);
  }

  public void setCount(MemorySegment s, long node, int count) {
    s.set(SHORT, node, (short) count);
  }

  public int level(MemorySegment s, long node) {
    return s.get(ValueLayout.JAVA_BYTE, node + 2);
  }

  public void setLevel(MemorySegment s, long node, int level) {
    if (level < 0 || level > Byte.MAX_VALUE) {
      throw new IllegalStateException("in-page level " + level + " out of range");
    }
    s.set(ValueLayout.JAVA_BYTE, node + 2, (byte) level);
  }

  public int nodeKind(MemorySegment s, long node) {
    return s.get(ValueLayout.JAVA_BYTE, node + 3);
  }

  public void setNodeKind(MemorySegment s, long node, int kind) {
    s.set(ValueLayout.JAVA_BYTE, node + 3, (byte) kind);
  }

  /** A leaf's next leaf as a pointer ({@link CacheFirstTree} encoding), or -1 for the last leaf. */
  public long next(MemorySegment s, long node) {
    int page = s.get(INT, node + 4);
    return page < 0 ? -1 : ((long) page << 16) | (s.get(SHORT, node + 8) & 0xFFFF);
  }

  public void setNext(MemorySegment s, long node, long pointer) {
    s.set(INT, node + 4, pointer < 0 ? -1 : (int) (pointer >>> 16));
    s.set(SHORT, node + 8, (short) (pointer < 0 ? 0 : pointer & 0xFFFF));
  }

  // ---- entries -----------------------------------------------------------------------------

  public long key(MemorySegment s, long node, int i) {
    long at = node + NODE_HEADER + (long) i * keyBytes;
    return keyBytes == 4 ? s.get(INT, at) : s.get(LONG, at);
  }

  public void setKey(MemorySegment s, long node, int i, long key) {
    long at = node + NODE_HEADER + (long) i * keyBytes;
    if (keyBytes == 4) {
      s.set(INT, at, (int) key);
    } else {
      s.set(LONG, at, key);
    }
  }

  public long rowId(MemorySegment s, long node, int i) {
    return s.get(LONG, node + rowIdsAt + (long) i * Long.BYTES);
  }

  public void setRowId(MemorySegment s, long node, int i, long rowId) {
    s.set(LONG, node + rowIdsAt + (long) i * Long.BYTES, rowId);
  }

  /** Child {@code i} of a non-leaf node as a pointer: {@code logicalPage << 16 | line}. */
  public long child(MemorySegment s, long node, int i) {
    int page = s.get(INT, node + childPagesAt + (long) i * Integer.BYTES);
    int line = s.get(SHORT, node + childLinesAt + (long) i * Short.BYTES) & 0xFFFF;
    return ((long) page << 16) | line;
  }

  public void setChild(MemorySegment s, long node, int i, long pointer) {
    s.set(INT, node + childPagesAt + (long) i * Integer.BYTES, (int) (pointer >>> 16));
    s.set(SHORT, node + childLinesAt + (long) i * Short.BYTES, (short) (pointer & 0xFFFF));
  }

  /** First index in {@code [0, n)} with key {@code >= key} ({@code strict}: {@code > key}), or n. */
  public int search(MemorySegment s, long node, int n, long key, boolean strict) {
    int lo = 0;
    int hi = n;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      long k = key(s, node, mid);
      if (k < key || (strict && k == key)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  @Override
  public String toString() {
    return "cache-first nodes of " + nodeLines + " lines, " + slots + " per page, " + leafCapacity
        + " leaf entries, " + innerCapacity + " children";
  }
}
