package dev.memwall.index.fpb;

import static dev.memwall.index.fpb.NodePointer.NULL;
import static dev.memwall.index.fpb.NodePointer.lineOf;
import static dev.memwall.index.fpb.NodePointer.nodeAt;
import static dev.memwall.index.fpb.NodePointer.pageOf;
import static dev.memwall.index.fpb.NodePointer.ptr;
import static dev.memwall.index.fpb.PageKinds.PAGE_LEAF;
import static dev.memwall.index.fpb.PageKinds.PAGE_NODES;
import static dev.memwall.index.fpb.PageKinds.PAGE_OVERFLOW;

import dev.memwall.index.KeyType;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The structural check of the cache-first tree behind {@link CacheFirstTree#checkInvariants}:
 * walks every node and page of the writer's {@link WorkingTree} and throws on the first violation.
 *
 * <p>Why a class: the tests run it after every step, and it spells out what a well-formed tree is,
 * apart from the code that keeps it so. Writer thread only (it reads through the writer's page
 * images, which it drops when done); it changes nothing.
 */
final class InvariantCheck {
  private final WorkingTree w;
  private final CacheFirstFormat format;
  private final KeyType keyType;

  InvariantCheck(WorkingTree w, KeyType keyType) {
    this.w = w;
    this.format = w.format;
    this.keyType = keyType;
  }

  /**
   * Checks everything {@link CacheFirstTree#checkInvariants} lists; {@code size} is the entry count
   * the tree records.
   *
   * @throws IllegalStateException describing the first violation
   */
  void check(long size) {
    try {
      Map<Long, Boolean> reached = new HashMap<>();
      List<Long> leaves = new ArrayList<>();
      long total = checkNode(w.rootPtr, w.height - 1, Long.MIN_VALUE, Long.MAX_VALUE, -1, -1, reached, leaves);
      if (total != size) {
        throw new IllegalStateException("tree holds " + total + " entries, size says " + size);
      }
      int[] nodesOnPage = new int[w.logicalCount];
      for (long p : reached.keySet()) {
        nodesOnPage[pageOf(p)]++;
      }
      for (int l = 0; l < w.logicalCount; l++) {
        int used = format.usedSlots(w.read(ptr(l, 0)), 0);
        if (used != nodesOnPage[l] || used == 0) {
          throw new IllegalStateException("page " + l + " has " + used + " used slots but " + nodesOnPage[l]
              + " reachable nodes");
        }
      }
      List<Integer> leafPageOrder = new ArrayList<>();
      for (int i = 0; i < leaves.size(); i++) {
        long leaf = leaves.get(i);
        long next = format.next(w.read(leaf), nodeAt(leaf));
        long expected = i + 1 < leaves.size() ? leaves.get(i + 1) : NULL;
        if (next != expected) {
          throw new IllegalStateException("leaf " + Long.toHexString(leaf) + " links to " + Long.toHexString(next)
              + ", not the next leaf " + Long.toHexString(expected));
        }
        int page = pageOf(leaf);
        if (i == 0 || pageOf(leaves.get(i - 1)) != page) {
          if (leafPageOrder.contains(page)) {
            throw new IllegalStateException("leaf page " + page + " holds two separate runs of leaves");
          }
          leafPageOrder.add(page);
          int first = format.firstLeafSlot(w.read(leaf), 0);
          if (format.lineOf(first) != lineOf(leaf)) {
            throw new IllegalStateException("leaf page " + page + " says its first leaf is slot " + first);
          }
        }
      }
      JumpArray j = w.jump;
      if (j.pages().length != leafPageOrder.size()) {
        throw new IllegalStateException("jump-pointer array lists " + j.pages().length + " leaf pages, tree has "
            + leafPageOrder.size());
      }
      for (int i = 0; i < j.pages().length; i++) {
        if (j.pages()[i] != leafPageOrder.get(i) || j.rankOf()[j.pages()[i]] != i) {
          throw new IllegalStateException("jump-pointer array out of order at " + i);
        }
      }
      BitSet phys = new BitSet();
      for (int l = 0; l < w.logicalCount; l++) {
        if (phys.get(w.physOf(l))) {
          throw new IllegalStateException("physical page " + w.physOf(l) + " mapped twice");
        }
        phys.set(w.physOf(l));
      }
      w.shadow.checkDisjoint(phys);
    } finally {
      w.dropImages();
    }
  }

  private long checkNode(long p, int levelsBelow, long lo, long hi, int parentPage, int parentLevel,
      Map<Long, Boolean> reached, List<Long> leaves) {
    int page = pageOf(p);
    if (page < 0 || page >= w.logicalCount || format.slotOf(lineOf(p)) < 0) {
      throw new IllegalStateException("pointer " + Long.toHexString(p) + " names no node slot");
    }
    if (reached.put(p, Boolean.TRUE) != null) {
      throw new IllegalStateException("node " + Long.toHexString(p) + " reached twice");
    }
    MemorySegment s = w.read(p);
    if (!format.slotUsed(s, 0, format.slotOf(lineOf(p)))) {
      throw new IllegalStateException("node " + Long.toHexString(p) + " is in a free slot");
    }
    long node = nodeAt(p);
    int kind = format.nodeKind(s, node);
    int pageKind = format.pageKind(s, 0);
    int level = format.level(s, node);
    int expectedLevel = page == parentPage ? parentLevel + 1 : 0;
    if (level != expectedLevel) {
      throw new IllegalStateException("node " + Long.toHexString(p) + " has in-page level " + level + ", expected "
          + expectedLevel);
    }
    int n = format.count(s, node);
    if (levelsBelow == 0) {
      if (kind != CacheFirstFormat.NODE_LEAF || pageKind != PAGE_LEAF) {
        throw new IllegalStateException("leaf " + Long.toHexString(p) + " of kind " + kind + " on page kind "
            + pageKind);
      }
      if (n < 0 || n > format.leafCapacity()) {
        throw new IllegalStateException("leaf " + Long.toHexString(p) + " holds " + n + " entries");
      }
      long previous = Long.MIN_VALUE;
      for (int i = 0; i < n; i++) {
        long k = format.key(s, node, i);
        if (k < lo || k > hi || k < previous || !keyType.fits(k)) {
          throw new IllegalStateException("leaf " + Long.toHexString(p) + " key " + k + " out of order or outside ["
              + lo + ", " + hi + "]");
        }
        previous = k;
      }
      leaves.add(p);
      return n;
    }
    int expectedKind = levelsBelow == 1 ? CacheFirstFormat.NODE_LEAF_PARENT : CacheFirstFormat.NODE_INNER;
    boolean pageOk = pageKind == PAGE_NODES
        || (pageKind == PAGE_OVERFLOW && expectedKind == CacheFirstFormat.NODE_LEAF_PARENT && level == 0);
    if (kind != expectedKind || !pageOk) {
      throw new IllegalStateException("node " + Long.toHexString(p) + " of kind " + kind + " at " + levelsBelow
          + " levels above the leaves, on page kind " + pageKind + " at level " + level);
    }
    if (n < 1 || n > format.innerCapacity()) {
      throw new IllegalStateException("non-leaf node " + Long.toHexString(p) + " has " + n + " children");
    }
    long total = 0;
    long low = lo;
    for (int i = 0; i < n; i++) {
      long bound = format.key(s, node, i);
      if (bound < low) {
        throw new IllegalStateException("non-leaf node " + Long.toHexString(p) + " bounds out of order");
      }
      long child = format.child(s, node, i);
      total += checkNode(child, levelsBelow - 1, low, i == n - 1 ? hi : Math.min(bound, hi), page, level, reached,
          leaves);
      s = w.read(p);
      low = bound;
    }
    return total;
  }
}
