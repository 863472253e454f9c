package dev.memwall.index.temporal;

import dev.memwall.core.temporal.HeapCharge;
import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.CorruptPageException;
import dev.memwall.index.page.PageFile;
import dev.memwall.index.page.ShadowPages;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * The data pages of a page-file temporal table, named by logical page numbers that stay put while
 * the physical page under them moves: the first change of a page after a commit copies it to a
 * fresh physical page ({@link ShadowPages}), so the last commit's pages are never overwritten and
 * the catalog's references to logical pages need no change. The logical-to-physical map is in
 * memory, charged to the table's {@link HeapCharge}, and saved with the catalog at each commit.
 *
 * <p><b>Page format.</b> After the page file's checksum: an int magic ({@value #MAGIC}), the store
 * part the page belongs to (a TDSM attribute, else 0), the number of longs used, the logical page
 * that continues this one (an overflow chain) or -1, then from byte {@value #HEADER} the used
 * longs: records, each a long {@code entity << 32 | longs} and that many longs of the entity's
 * segment. A page whose header does not fit is reported as a {@link CorruptPageException} naming
 * the file and physical page.
 *
 * <p><b>Pages read.</b> Every page read is marked in a set of logical pages that {@link
 * #startCounting} clears: {@link #pagesRead} is the number of distinct pages since, the paper's cost
 * of a query (a page read once per query, as through a buffer pool that holds it). Thread safety:
 * one thread, the table's.
 */
final class DataPages {
  /** "TPG1" in ASCII: a data page of a temporal table. */
  static final int MAGIC = 0x54504731;
  static final int HEADER = 24;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

  /** A page's contents: its part, the page continuing it (or -1) and its used longs. */
  record Page(int part, int next, long[] data) {}

  private final PageFile file;
  private final BufferPool pool;
  private final ShadowPages shadow;
  private final HeapCharge charge;
  private final int capacity;
  private int[] physical = new int[0];
  private int logicalCount;
  private int[] freeLogical = new int[0];
  private int freeCount;
  private final BitSet read = new BitSet();

  DataPages(PageFile file, BufferPool pool, ShadowPages shadow, HeapCharge charge) {
    this.file = file;
    this.pool = pool;
    this.shadow = shadow;
    this.charge = charge;
    this.capacity = (file.pageBytes() - HEADER) / Long.BYTES;
  }

  /** The page file, for the names of errors. */
  Path path() {
    return file.path();
  }

  /** Longs a page holds, record headers included. */
  int capacity() {
    return capacity;
  }

  int logicalCount() {
    return logicalCount;
  }

  /** The physical page under logical page {@code logical}, -1 for a free one. */
  int physical(int logical) {
    return physical[logical];
  }

  /** Replaces the map by a saved one (on open): {@code map[l]} the physical page of l, -1 if free. */
  void restore(int[] map, int count) {
    physical = charge.grow(physical, count);
    System.arraycopy(map, 0, physical, 0, count);
    logicalCount = count;
    for (int l = 0; l < count; l++) {
      if (map[l] < 0) {
        freeLogical = charge.grow(freeLogical, freeCount + 1);
        freeLogical[freeCount++] = l;
      }
    }
  }

  /**
   * Makes sure {@code pages} logical and physical pages can be handed out without a refusal:
   * grows the map and the file now.
   */
  void reserve(int pages) {
    shadow.reserve(pages);
    physical = charge.grow(physical, logicalCount + pages);
    freeLogical = charge.grow(freeLogical, logicalCount + pages);
  }

  /** A logical page with no physical page yet (reserve first). */
  int allocate() {
    int logical = freeCount > 0 ? freeLogical[--freeCount] : logicalCount++;
    physical[logical] = -1;
    return logical;
  }

  /** Frees a logical page and its physical page (now, or after the next commit if committed). */
  void free(int logical) {
    int page = physical[logical];
    if (page >= 0) {
      if (shadow.writtenSinceCommit(page)) {
        shadow.freeNow(page);
      } else {
        shadow.freeAfterCommit(page);
      }
    }
    physical[logical] = -1;
    freeLogical[freeCount++] = logical;
  }

  /** Reads logical page {@code logical}, which must belong to {@code part}, and counts it. */
  Page read(int logical, int part) {
    int page = physical[logical];
    if (page < 0) {
      throw new CorruptPageException(file.path(), logical, "logical page " + logical + " has no page but is read");
    }
    read.set(logical);
    int frame = pool.pin(page);
    try {
      MemorySegment seg = pool.frames();
      long at = pool.offset(frame);
      int magic = seg.get(INT, at + 4);
      int owner = seg.get(INT, at + 8);
      int used = seg.get(INT, at + 12);
      int next = seg.get(INT, at + 16);
      if (magic != MAGIC || owner != part || used < 0 || used > capacity || next < -1 || next >= logicalCount) {
        throw new CorruptPageException(file.path(), page, "not a data page of part " + part + " (magic " + magic
            + ", part " + owner + ", " + used + " longs, next " + next + ")");
      }
      long[] data = new long[used];
      MemorySegment.copy(seg, LONG, at + HEADER, data, 0, used);
      return new Page(part, next, data);
    } finally {
      pool.unpin(frame);
    }
  }

  /** Writes the first {@code used} longs of {@code data} as logical page {@code logical}, copying it if committed. */
  void write(int logical, int part, int next, long[] data, int used) {
    int page = physical[logical];
    int frame;
    if (page >= 0 && shadow.writtenSinceCommit(page)) {
      frame = pool.pin(page);
    } else {
      if (page >= 0) {
        shadow.freeAfterCommit(page);
      }
      page = shadow.allocate();
      physical[logical] = page;
      frame = pool.pinNew(page);
    }
    try {
      MemorySegment seg = pool.frames();
      long at = pool.offset(frame);
      pool.beginWrite(frame);
      seg.set(INT, at + 4, MAGIC);
      seg.set(INT, at + 8, part);
      seg.set(INT, at + 12, used);
      seg.set(INT, at + 16, next);
      MemorySegment.copy(data, 0, seg, LONG, at + HEADER, used);
      seg.asSlice(at + HEADER + (long) used * Long.BYTES, pool.pageBytes() - HEADER - (long) used * Long.BYTES)
          .fill((byte) 0);
      pool.endWrite(frame);
    } finally {
      pool.unpin(frame);
    }
  }

  /** Marks every physical page the map names in {@code used}. */
  void markUsed(BitSet used) {
    for (int l = 0; l < logicalCount; l++) {
      if (physical[l] >= 0) {
        used.set(physical[l]);
      }
    }
  }

  /** Starts counting the pages of a query. */
  void startCounting() {
    read.clear();
  }

  /** Distinct pages read since {@link #startCounting}. */
  int pagesRead() {
    return read.cardinality();
  }

  /** Pages holding data now. */
  int pagesInUse() {
    return logicalCount - freeCount;
  }
}
