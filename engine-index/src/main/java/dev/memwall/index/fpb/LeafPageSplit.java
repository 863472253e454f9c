package dev.memwall.index.fpb;

import static dev.memwall.index.fpb.NodePointer.NULL;
import static dev.memwall.index.fpb.NodePointer.nodeAt;
import static dev.memwall.index.fpb.NodePointer.pageOf;
import static dev.memwall.index.fpb.NodePointer.ptr;
import static dev.memwall.index.fpb.PageKinds.PAGE_LEAF;

import dev.memwall.index.page.CorruptPageException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The split of a full leaf page: the second half of its run of leaves moves to a new leaf page,
 * the sibling links and the jump-pointer array follow, and the parents' child pointers to the
 * moved leaves are rewritten. The parents are found by walking the leaf-parent entries from the
 * inserting path (the leaf-parent entries in key order are the leaves in key order, and a page's
 * leaves are a contiguous run of them), which replaces the thesis's per-page back pointer and
 * leaf-parent sibling links and needs no upkeep when non-leaf nodes move.
 *
 * <p>Why a class: this walk is the one place where the tree's pages and its key order meet; it
 * deserves its own reading. Writer thread only, inside an {@link Updates} insert whose path it
 * shares (and moves along with the inserting leaf). A leaf page or parent entries out of step with
 * the leaves give {@link CorruptPageException}; the insert then restores the tree.
 */
final class LeafPageSplit {
  private final WorkingTree w;
  private final CacheFirstFormat format;
  private final long[] pathPtr;
  private final int[] pathIdx;

  LeafPageSplit(WorkingTree w, long[] pathPtr, int[] pathIdx) {
    this.w = w;
    this.format = w.format;
    this.pathPtr = pathPtr;
    this.pathIdx = pathIdx;
  }

  /** The leaves of leaf page {@code page} in key order. */
  private long[] leafRun(int page) {
    MemorySegment s = w.read(ptr(page, 0));
    int used = format.usedSlots(s, 0);
    long[] run = new long[used];
    long p = ptr(page, format.lineOf(format.firstLeafSlot(s, 0)));
    for (int i = 0; i < used; i++) {
      if (p == NULL || pageOf(p) != page) {
        throw new CorruptPageException(w.file.path(), w.physOf(page), "leaf page " + page + " holds " + used
            + " leaves but links only " + i);
      }
      run[i] = p;
      p = format.next(s, nodeAt(p));
    }
    return run;
  }

  /**
   * Moves the second half of the leaf run of the leaf at {@code leafDepth} to a new leaf page,
   * rewriting the moved leaves' parent pointers, the sibling links and the jump-pointer array; the
   * path follows the inserting leaf if it moved.
   */
  void split(int leafDepth) {
    long target = pathPtr[leafDepth];
    int page = pageOf(target);
    long[] run = leafRun(page);
    int k = run.length;
    int half = k / 2;
    int t = -1;
    for (int i = 0; i < k; i++) {
      if (run[i] == target) {
        t = i;
      }
    }
    if (t < 0) {
      throw new CorruptPageException(w.file.path(), w.physOf(page), "leaf not in its page's run");
    }
    int newPageId = w.newPage(PAGE_LEAF);
    MemorySegment ns = w.writePage(newPageId);
    format.setFirstLeafSlot(ns, 0, 0);
    MemorySegment os = w.writePage(page);
    long[] moved = new long[k - half];
    for (int i = half; i < k; i++) {
      moved[i - half] = w.allocNode(newPageId, CacheFirstFormat.NODE_LEAF, 0);
      MemorySegment.copy(os, nodeAt(run[i]), ns, nodeAt(moved[i - half]), format.nodeBytes());
    }
    for (int i = half; i < k; i++) {
      if (i + 1 < k) {
        format.setNext(ns, nodeAt(moved[i - half]), moved[i + 1 - half]);
      }
      w.freeNode(run[i]);
    }
    format.setNext(os, nodeAt(run[half - 1]), moved[0]);
    // rewrite the parents' pointers: walk the leaf-parent entries from the target's
    int parentDepth = leafDepth - 1;
    long[] cPtr = Arrays.copyOf(pathPtr, leafDepth);
    int[] cIdx = Arrays.copyOf(pathIdx, leafDepth);
    for (int i = t; i > half; i--) {
      stepEntry(cPtr, cIdx, parentDepth, -1);
    }
    for (int i = t; i < half; i++) {
      stepEntry(cPtr, cIdx, parentDepth, +1);
    }
    for (int i = half; i < k; i++) {
      if (i > half && !stepEntry(cPtr, cIdx, parentDepth, +1)) {
        throw new CorruptPageException(w.file.path(), w.physOf(page), "fewer leaf-parent entries than leaves");
      }
      MemorySegment ps = w.write(cPtr[parentDepth]);
      long pnode = nodeAt(cPtr[parentDepth]);
      if (format.child(ps, pnode, cIdx[parentDepth]) != run[i]) {
        throw new CorruptPageException(w.file.path(), w.physOf(pageOf(cPtr[parentDepth])),
            "leaf-parent entries out of step with the leaves");
      }
      format.setChild(ps, pnode, cIdx[parentDepth], moved[i - half]);
    }
    if (t >= half) {
      pathPtr[leafDepth] = moved[t - half];
    }
    // the external jump-pointer array gains the new page after the old one
    JumpArray j = w.jump;
    int r = j.rankOf()[page];
    int[] pages = new int[j.pages().length + 1];
    System.arraycopy(j.pages(), 0, pages, 0, r + 1);
    pages[r + 1] = newPageId;
    System.arraycopy(j.pages(), r + 1, pages, r + 2, j.pages().length - r - 1);
    int[] rank = Arrays.copyOf(j.rankOf(), Math.max(j.rankOf().length, w.logicalCount));
    for (int i = j.rankOf().length; i < rank.length; i++) {
      rank[i] = -1;
    }
    for (int i = r + 1; i < pages.length; i++) {
      rank[pages[i]] = i;
    }
    w.jump = new JumpArray(pages, rank);
  }

  /** Moves a cursor over the entries of depth {@code d} by one in {@code dir}; false at either end. */
  private boolean stepEntry(long[] cPtr, int[] cIdx, int d, int dir) {
    int e = d;
    while (e >= 0) {
      MemorySegment s = w.read(cPtr[e]);
      int n = format.count(s, nodeAt(cPtr[e]));
      int i = cIdx[e] + dir;
      if (i >= 0 && i < n) {
        cIdx[e] = i;
        break;
      }
      e--;
    }
    if (e < 0) {
      return false;
    }
    for (int f = e + 1; f <= d; f++) {
      cPtr[f] = format.child(w.read(cPtr[f - 1]), nodeAt(cPtr[f - 1]), cIdx[f - 1]);
      int n = format.count(w.read(cPtr[f]), nodeAt(cPtr[f]));
      cIdx[f] = dir > 0 ? 0 : n - 1;
    }
    return true;
  }
}
