package dev.memwall.index.fpb;

import static dev.memwall.index.fpb.NodePointer.nodeAt;
import static dev.memwall.index.fpb.PageKinds.PAGE_NODES;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The aggressive placement of the bulkloaded non-leaf levels: a page takes a full subtree of
 * {@code fullLevels} in-page levels plus, at in-page level {@code fullLevels}, the children whose
 * bit in the bitmap is set ({@code bitsPerParent} of every node's {@code fanout} positions,
 * spread evenly); other children start new pages, leaf parents go to overflow pages.
 *
 * <p>Why a class: the placement is the cache-first tree's distinctive decision (seed 002
 * section 3.3.4), worth reading apart from the bulkload's arithmetic. Used once per bulkload, on
 * the writer thread; {@code from} and {@code bounds} describe a valid bottom-up build (the caller's
 * duty, not checked).
 */
final class Placement {
  private final WorkingTree w;
  private final CacheFirstFormat format;
  private final int fanout;
  private final int fullLevels;
  private final int bitsPerParent;
  private final List<int[]> from;
  private final List<long[]> bounds;
  private final long[] leafPtrs;

  Placement(WorkingTree w, int fanout, List<int[]> from, List<long[]> bounds, long[] leafPtrs) {
    this.w = w;
    this.format = w.format;
    this.fanout = fanout;
    this.from = from;
    this.bounds = bounds;
    this.leafPtrs = leafPtrs;
    int slots = format.slots();
    long nodes = 1;
    long levelNodes = 1;
    int l = 1;
    while (nodes + levelNodes * fanout <= slots) {
      levelNodes *= fanout;
      nodes += levelNodes;
      l++;
    }
    this.fullLevels = l;
    long underflow = slots - nodes;
    this.bitsPerParent = (int) Math.min(fanout, underflow / levelNodes);
  }

  private boolean bit(int child) {
    return (long) (child + 1) * bitsPerParent / fanout > (long) child * bitsPerParent / fanout;
  }

  /** Places node {@code i} of level {@code h} on {@code page} at {@code level}, then its subtree. */
  long place(int h, int i, int page, int level) {
    int kind = h == 1 ? CacheFirstFormat.NODE_LEAF_PARENT : CacheFirstFormat.NODE_INNER;
    long ptr = w.allocNode(page, kind, level);
    int[] f = from.get(h);
    int first = f[i];
    int children = f[i + 1] - first;
    long[] ptrsOfChildren = new long[children];
    for (int k = 0; k < children; k++) {
      int c = first + k;
      if (h == 1) {
        ptrsOfChildren[k] = leafPtrs[c];
        continue;
      }
      int childLevel = level + 1;
      boolean here = (childLevel < fullLevels || (childLevel == fullLevels && bit(k))) && w.hasFreeSlot(page);
      if (here) {
        ptrsOfChildren[k] = place(h - 1, c, page, childLevel);
      } else if (h - 1 == 1) {
        ptrsOfChildren[k] = placeInOverflow(h - 1, c);
      } else {
        ptrsOfChildren[k] = place(h - 1, c, w.newPage(PAGE_NODES), 0);
      }
    }
    MemorySegment s = w.write(ptr);
    long node = nodeAt(ptr);
    for (int k = 0; k < children; k++) {
      format.setKey(s, node, k, boundOf(h - 1, first + k));
      format.setChild(s, node, k, ptrsOfChildren[k]);
    }
    format.setCount(s, node, children);
    return ptr;
  }

  private long boundOf(int level, int index) {
    return bounds.get(level)[index];
  }

  private long placeInOverflow(int h, int c) {
    return place(h, c, w.overflowWithRoom(), 0);
  }
}
