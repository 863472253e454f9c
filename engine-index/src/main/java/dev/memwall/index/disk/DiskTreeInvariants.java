package dev.memwall.index.disk;

import static dev.memwall.index.disk.DiskBPlusTree.END;
import static dev.memwall.index.disk.DiskBPlusTree.KIND_INNER;
import static dev.memwall.index.disk.DiskBPlusTree.KIND_LEAF;

import dev.memwall.index.disk.DiskBPlusTree.Root;
import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.PageFormat;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;

/**
 * The structural check of a {@link DiskBPlusTree} behind {@link DiskBPlusTree#checkInvariants}:
 * walks every page the committed and uncommitted tree reaches and throws
 * {@link IllegalStateException} on the first violation.
 *
 * <p>Why a class: it spells out what a well-formed tree is, apart from the code that keeps it so.
 * Writer thread only (it pins pages through the tree's buffer pool and unpins them); it changes
 * nothing.
 */
final class DiskTreeInvariants {
  private final DiskBPlusTree tree;
  private final BufferPool pool;
  private final MemorySegment seg;
  private final PageFormat leafFmt;
  private final PageFormat innerFmt;

  DiskTreeInvariants(DiskBPlusTree tree) {
    this.tree = tree;
    this.pool = tree.pool;
    this.seg = pool.frames();
    this.leafFmt = tree.leafFormat();
    this.innerFmt = tree.innerFormat();
  }

  /**
   * Walks the whole tree (writer thread only) and checks every page's own invariants, the key
   * bounds between pages, uniform height, the entry count, and that no reachable page is free.
   *
   * @throws IllegalStateException describing the first violation
   */
  void check() {
    Root r = tree.root;
    BitSet reached = new BitSet();
    long total = checkPage(r.page(), r.height() - 1, Long.MIN_VALUE, Long.MAX_VALUE, reached);
    if (total != tree.size) {
      throw new IllegalStateException("tree holds " + total + " entries, size says " + tree.size);
    }
    tree.shadow.checkDisjoint(reached);
  }

  private long checkPage(int page, int levelsBelow, long lo, long hi, BitSet reached) {
    if (reached.get(page)) {
      throw new IllegalStateException("page " + page + " reached twice");
    }
    reached.set(page);
    int frame = pool.pin(page);
    try {
      long base = pool.offset(frame);
      int kind = seg.get(PageFormat.SHORT, base + PageFormat.KIND);
      PageFormat fmt = levelsBelow == 0 ? leafFmt : innerFmt;
      if (kind != (levelsBelow == 0 ? KIND_LEAF : KIND_INNER)) {
        throw new IllegalStateException("page " + page + " has kind " + kind + " at " + levelsBelow
            + " levels above the leaves");
      }
      try {
        fmt.check(seg, base);
      } catch (IllegalStateException e) {
        throw new IllegalStateException("page " + page + ": " + e.getMessage(), e);
      }
      if (levelsBelow == 0) {
        for (long h = fmt.first(seg, base); h != END; h = fmt.next(seg, base, h)) {
          long k = fmt.key(seg, base, h);
          if (k < lo || k > hi || !tree.keyType.fits(k)) {
            throw new IllegalStateException("leaf page " + page + " key " + k + " outside [" + lo + ", " + hi + "]");
          }
        }
        return fmt.count(seg, base);
      }
      if (fmt.count(seg, base) < 1) {
        throw new IllegalStateException("non-leaf page " + page + " has no children");
      }
      long total = 0;
      long low = lo;
      for (long h = fmt.first(seg, base); h != END; h = fmt.next(seg, base, h)) {
        long bound = fmt.key(seg, base, h);
        boolean last = fmt.next(seg, base, h) == END;
        if (bound < low) {
          throw new IllegalStateException("non-leaf page " + page + " bounds out of order");
        }
        total += checkPage((int) fmt.value(seg, base, h), levelsBelow - 1, low, last ? hi : Math.min(bound, hi),
            reached);
        low = bound;
      }
      return total;
    } finally {
      pool.unpin(frame);
    }
  }
}
