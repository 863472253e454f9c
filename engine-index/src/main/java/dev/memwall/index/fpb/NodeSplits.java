package dev.memwall.index.fpb;

import static dev.memwall.index.fpb.NodePointer.nodeAt;
import static dev.memwall.index.fpb.NodePointer.pageOf;
import static dev.memwall.index.fpb.NodePointer.ptr;
import static dev.memwall.index.fpb.PageKinds.PAGE_NODES;

import dev.memwall.index.KeyType;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * How a split's new entry goes up the cache-first tree. A full leaf parent splits into a free slot
 * of its page, else into an overflow page. A full non-leaf node splits into a free slot of its
 * page; if there is none, the page is split (seed 002 Figure 3.10(c)): a top node's new half
 * becomes the top node of a new page and takes its in-page children along; otherwise the in-page
 * subtree of one of the path's nodes in that page (the one closest to half the page) moves to a
 * new page, freeing room. A full root grows a new root above it.
 *
 * <p>Why a class: node and page splits with their in-page levels are the most intricate writer
 * code; they read best apart from the leaf insert. Writer thread only, inside an {@link Updates}
 * insert whose path and scratch arrays it shares (and moves along with moved nodes). A tree taller
 * than {@link Updates#MAX_HEIGHT} levels gives {@link IllegalStateException}; the insert then
 * restores the tree.
 */
final class NodeSplits {
  private final WorkingTree w;
  private final CacheFirstFormat format;
  private final KeyType keyType;
  private final long[] pathPtr;
  private final int[] pathIdx;
  private final long[] scratchKeys;
  private final long[] scratchValues;

  NodeSplits(WorkingTree w, KeyType keyType, long[] pathPtr, int[] pathIdx, long[] scratchKeys,
      long[] scratchValues) {
    this.w = w;
    this.format = w.format;
    this.keyType = keyType;
    this.pathPtr = pathPtr;
    this.pathIdx = pathIdx;
    this.scratchKeys = scratchKeys;
    this.scratchValues = scratchValues;
  }

  /**
   * After {@code left} (child {@code pathIdx[d]} of the node at depth {@code d}) split into
   * {@code left} and {@code right} at {@code separator}: the parent entry becomes
   * {@code (separator, left)} followed by {@code (old bound, right)}; a full parent splits.
   */
  void insertIntoParent(int d, long left, long separator, long right) {
    if (d < 0) {
      growRoot(left, separator, right);
      return;
    }
    long parent = pathPtr[d];
    MemorySegment s = w.write(parent);
    long node = nodeAt(parent);
    int n = format.count(s, node);
    int i = pathIdx[d];
    int kind = format.nodeKind(s, node);
    for (int j = 0; j < n; j++) {
      scratchKeys[j] = format.key(s, node, j);
      scratchValues[j] = format.child(s, node, j);
    }
    long bound = scratchKeys[i];
    System.arraycopy(scratchKeys, i + 1, scratchKeys, i + 2, n - i - 1);
    System.arraycopy(scratchValues, i + 1, scratchValues, i + 2, n - i - 1);
    scratchKeys[i] = separator;
    scratchValues[i] = left;
    scratchKeys[i + 1] = Math.max(bound, separator); // a last entry's bound may lie below its keys
    scratchValues[i + 1] = right;
    n++;
    if (n <= format.innerCapacity()) {
      writeEntries(s, node, 0, n);
      return;
    }
    int m = n / 2;
    int page = pageOf(parent);
    long sibling;
    if (w.hasFreeSlot(page)) {
      sibling = w.allocNode(page, kind, format.level(s, node));
    } else if (kind == CacheFirstFormat.NODE_LEAF_PARENT) {
      sibling = w.allocNode(w.overflowWithRoom(), kind, 0);
    } else if (format.level(s, node) == 0) {
      sibling = splitTopNodePage(parent, m, n);
      s = w.write(parent);
      writeEntries(s, node, 0, m);
      insertIntoParent(d - 1, parent, scratchKeys[m - 1], sibling);
      return;
    } else {
      int oldPage = pageOf(parent);
      int oldLevel = format.level(s, node);
      Map<Long, Long> movedTo = relocateForRoom(d);
      parent = pathPtr[d];
      int shift = format.level(w.read(parent), nodeAt(parent)) - oldLevel;
      for (int j = 0; j < n; j++) {
        // in-page children moved with the node; one added by this insert (still only in scratch) moves now
        Long moved = movedTo.get(scratchValues[j]);
        if (moved != null) {
          scratchValues[j] = moved;
        } else if (pageOf(scratchValues[j]) == oldPage && kind == CacheFirstFormat.NODE_INNER) {
          scratchValues[j] = moveSubtree(scratchValues[j], oldPage, pageOf(parent), shift, movedTo);
        }
      }
      s = w.write(parent);
      node = nodeAt(parent);
      sibling = w.allocNode(pageOf(parent), kind, format.level(s, node));
    }
    MemorySegment ss = w.write(sibling);
    s = w.write(parent);
    long snode = nodeAt(sibling);
    for (int j = m; j < n; j++) {
      format.setKey(ss, snode, j - m, scratchKeys[j]);
      format.setChild(ss, snode, j - m, scratchValues[j]);
    }
    format.setCount(ss, snode, n - m);
    long sep = scratchKeys[m - 1];
    writeEntries(s, nodeAt(parent), 0, m);
    insertIntoParent(d - 1, parent, sep, sibling);
  }

  private void writeEntries(MemorySegment s, long node, int from, int to) {
    for (int j = from; j < to; j++) {
      format.setKey(s, node, j - from, scratchKeys[j]);
      format.setChild(s, node, j - from, scratchValues[j]);
    }
    format.setCount(s, node, to - from);
  }

  /**
   * Figure 3.10(c): the top node {@code node} (in-page level 0) of a full page splits; its second
   * half (scratch entries {@code [m, n)}) becomes the top node of a new page and takes its in-page
   * children (with their in-page subtrees) along. Returns the new node.
   */
  private long splitTopNodePage(long node, int m, int n) {
    int from = pageOf(node);
    int to = w.newPage(PAGE_NODES);
    int kind = format.nodeKind(w.read(node), nodeAt(node));
    long sibling = w.allocNode(to, kind, 0);
    long[] keys = Arrays.copyOfRange(scratchKeys, m, n);
    long[] children = Arrays.copyOfRange(scratchValues, m, n);
    for (int j = 0; j < children.length; j++) {
      if (pageOf(children[j]) == from && kind == CacheFirstFormat.NODE_INNER) {
        children[j] = moveSubtree(children[j], from, to, 0, null);
      }
    }
    MemorySegment ss = w.write(sibling);
    long snode = nodeAt(sibling);
    for (int j = 0; j < keys.length; j++) {
      format.setKey(ss, snode, j, keys[j]);
      format.setChild(ss, snode, j, children[j]);
    }
    format.setCount(ss, snode, keys.length);
    return sibling;
  }

  /**
   * Frees room in the full page of the node at depth {@code d} (in-page level >= 1) by moving the
   * in-page subtree of one of the path's nodes in that page below its top to a new page; the path
   * follows the moved nodes. Returns where each moved node went.
   */
  private Map<Long, Long> relocateForRoom(int d) {
    int page = pageOf(pathPtr[d]);
    int top = d;
    while (top > 0 && pageOf(pathPtr[top - 1]) == page) {
      top--;
    }
    int used = format.usedSlots(w.read(ptr(page, 0)), 0);
    int best = -1;
    int bestDistance = Integer.MAX_VALUE;
    for (int e = top + 1; e <= d; e++) {
      int sz = subtreeSize(pathPtr[e], page);
      int distance = Math.abs(2 * sz - used);
      if (distance < bestDistance) {
        best = e;
        bestDistance = distance;
      }
    }
    if (best < 0) {
      throw new IllegalStateException("node at depth " + d + " has in-page level >= 1 but no in-page parent");
    }
    int to = w.newPage(PAGE_NODES);
    Map<Long, Long> movedTo = new HashMap<>();
    int shift = -format.level(w.read(pathPtr[best]), nodeAt(pathPtr[best]));
    long moved = moveSubtree(pathPtr[best], page, to, shift, movedTo);
    MemorySegment ps = w.write(pathPtr[best - 1]);
    format.setChild(ps, nodeAt(pathPtr[best - 1]), pathIdx[best - 1], moved);
    for (int e = best; e <= d; e++) {
      Long now = movedTo.get(pathPtr[e]);
      if (now == null) {
        throw new IllegalStateException("path node at depth " + e + " did not move with its subtree");
      }
      pathPtr[e] = now;
    }
    return movedTo;
  }

  private int subtreeSize(long ptr, int page) {
    MemorySegment s = w.read(ptr);
    long node = nodeAt(ptr);
    int size = 1;
    if (format.nodeKind(s, node) == CacheFirstFormat.NODE_INNER) {
      int n = format.count(s, node);
      for (int j = 0; j < n; j++) {
        long c = format.child(s, node, j);
        if (pageOf(c) == page) {
          size += subtreeSize(c, page);
        }
      }
    }
    return size;
  }

  /**
   * Moves the node {@code ptr} on page {@code from} and its in-page descendants to page {@code to},
   * adding {@code shift} to their in-page levels; returns the node's new pointer.
   */
  private long moveSubtree(long ptr, int from, int to, int shift, Map<Long, Long> movedTo) {
    MemorySegment src = w.read(ptr);
    long node = nodeAt(ptr);
    int kind = format.nodeKind(src, node);
    long copy = w.allocNode(to, kind, format.level(src, node) + shift);
    MemorySegment dst = w.write(copy);
    long cnode = nodeAt(copy);
    MemorySegment.copy(src, node, dst, cnode, format.nodeBytes());
    format.setLevel(dst, cnode, format.level(src, node) + shift);
    w.freeNode(ptr);
    if (movedTo != null) {
      movedTo.put(ptr, copy);
    }
    if (kind == CacheFirstFormat.NODE_INNER) {
      int n = format.count(dst, cnode);
      for (int j = 0; j < n; j++) {
        long c = format.child(dst, cnode, j);
        if (pageOf(c) == from) {
          format.setChild(dst, cnode, j, moveSubtree(c, from, to, shift, movedTo));
        }
      }
    }
    return copy;
  }

  /** The root split into {@code left} and {@code right}: a new root above them. */
  private void growRoot(long left, long separator, long right) {
    if (w.height + 1 >= Updates.MAX_HEIGHT) {
      throw new IllegalStateException("tree taller than " + Updates.MAX_HEIGHT + " levels");
    }
    int kind = w.height == 1 ? CacheFirstFormat.NODE_LEAF_PARENT : CacheFirstFormat.NODE_INNER;
    int page = pageOf(left);
    long root;
    if (w.height > 1 && w.hasFreeSlot(page)) {
      // the old root's page holds only the old root's in-page subtree (and now its sibling): relevel
      MemorySegment s = w.writePage(page);
      for (int slot = 0; slot < format.slots(); slot++) {
        if (format.slotUsed(s, 0, slot)) {
          long node = (long) format.lineOf(slot) * CacheFirstFormat.LINE_BYTES;
          format.setLevel(s, node, format.level(s, node) + 1);
        }
      }
      root = w.allocNode(page, kind, 0);
    } else {
      root = w.allocNode(w.newPage(PAGE_NODES), kind, 0);
    }
    MemorySegment s = w.write(root);
    long node = nodeAt(root);
    format.setKey(s, node, 0, separator);
    format.setChild(s, node, 0, left);
    format.setKey(s, node, 1, keyType.max());
    format.setChild(s, node, 1, right);
    format.setCount(s, node, 2);
    w.rootPtr = root;
    w.height = w.height + 1;
  }
}
