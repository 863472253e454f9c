package dev.memwall.index.fpb;

import static dev.memwall.index.fpb.NodePointer.NULL;
import static dev.memwall.index.fpb.NodePointer.nodeAt;
import static dev.memwall.index.fpb.NodePointer.pageOf;

import dev.memwall.index.KeyType;
import dev.memwall.index.page.PageFileFullException;
import java.lang.foreign.MemorySegment;

/**
 * Inserts and deletes of the cache-first tree: the descent that records the path, the leaf insert
 * (shifting inside the leaf, or splitting it within its leaf page, the page split first if it is
 * full, see {@link LeafPageSplit}), and the lazy delete (no merges). A split's new entry goes up
 * through {@link NodeSplits}. Each operation changes page images of the {@link WorkingTree} and
 * installs them only when it has succeeded; on any failure it restores the saved shape, so the
 * tree is unchanged.
 *
 * <p>Why a class: the update path and the state it carries (root-to-leaf path, scratch arrays) in
 * one place. Writer thread only; keys are checked by the caller.
 */
final class Updates {
  /** Most levels a tree may have (the path arrays' length). */
  static final int MAX_HEIGHT = 64;

  private final WorkingTree w;
  private final CacheFirstFormat format;
  private final MapChain map;
  private final long[] pathPtr = new long[MAX_HEIGHT];
  private final int[] pathIdx = new int[MAX_HEIGHT];
  private final long[] scratchKeys;
  private final long[] scratchValues;
  private final LeafPageSplit leafPages;
  private final NodeSplits nodes;

  Updates(WorkingTree w, MapChain map, KeyType keyType) {
    this.w = w;
    this.format = w.format;
    this.map = map;
    int scratch = Math.max(format.leafCapacity(), format.innerCapacity()) + 2;
    this.scratchKeys = new long[scratch];
    this.scratchValues = new long[scratch];
    this.leafPages = new LeafPageSplit(w, pathPtr, pathIdx);
    this.nodes = new NodeSplits(w, keyType, pathPtr, pathIdx, scratchKeys, scratchValues);
  }

  /**
   * Adds {@code (key, rowId)} (a key the caller checked) after every entry with the same key and
   * installs the change.
   *
   * @throws PageFileFullException if the file cannot hold the pages the insert may need; the tree
   *     is unchanged then
   */
  void insert(long key, long rowId) {
    w.shadow.reserve(insertPagesBound());
    WorkingTree.Saved saved = w.save();
    try {
      descend(key, true);
      int leafDepth = w.height - 1;
      long leaf = pathPtr[leafDepth];
      MemorySegment s = w.read(leaf);
      long node = nodeAt(leaf);
      int n = format.count(s, node);
      int pos = format.search(s, node, n, key, true);
      if (n < format.leafCapacity()) {
        s = w.write(leaf);
        shiftInsertLeaf(s, node, n, pos, key, rowId);
      } else {
        splitLeafAndInsert(leafDepth, pos, key, rowId);
      }
      w.installImages();
    } catch (RuntimeException | Error e) {
      w.restore(saved);
      throw e;
    }
  }

  /** Physical pages the worst insert may need: copies of the pages it touches and new pages. */
  private int insertPagesBound() {
    int h = w.height;
    return 4 * h + format.slots() + 8 + map.pagesNeeded(2 * h + 4);
  }

  /**
   * Removes the first entry {@code (key, rowId)} (in insertion order); false if there is none.
   * Nodes are not merged. The key is one the caller checked.
   */
  boolean delete(long key, long rowId) {
    w.shadow.reserve(2 + map.pagesNeeded(0));
    WorkingTree.Saved saved = w.save();
    try {
      descend(key, false);
      long leaf = pathPtr[w.height - 1];
      MemorySegment s = w.read(leaf);
      int i = format.search(s, nodeAt(leaf), format.count(s, nodeAt(leaf)), key, false);
      long guard = 0;
      for (;;) {
        long node = nodeAt(leaf);
        int n = format.count(s, node);
        if (i >= n) {
          leaf = format.next(s, node);
          if (leaf == NULL || ++guard > w.logicalCount * (long) format.slots()) {
            w.dropImages();
            return false;
          }
          s = w.read(leaf);
          i = 0;
          continue;
        }
        if (format.key(s, node, i) != key) {
          w.dropImages();
          return false;
        }
        if (format.rowId(s, node, i) == rowId) {
          s = w.write(leaf);
          for (int j = i; j < n - 1; j++) {
            format.setKey(s, node, j, format.key(s, node, j + 1));
            format.setRowId(s, node, j, format.rowId(s, node, j + 1));
          }
          format.setCount(s, node, n - 1);
          w.installImages();
          return true;
        }
        i++;
      }
    } catch (RuntimeException | Error e) {
      w.restore(saved);
      throw e;
    }
  }

  private void shiftInsertLeaf(MemorySegment s, long node, int n, int pos, long key, long rowId) {
    for (int i = n; i > pos; i--) {
      format.setKey(s, node, i, format.key(s, node, i - 1));
      format.setRowId(s, node, i, format.rowId(s, node, i - 1));
    }
    format.setKey(s, node, pos, key);
    format.setRowId(s, node, pos, rowId);
    format.setCount(s, node, n + 1);
  }

  /** Fills pathPtr/pathIdx from the root to the leaf for {@code key} (strict: past equal keys). */
  private void descend(long key, boolean strict) {
    long p = w.rootPtr;
    for (int d = 0; d < w.height - 1; d++) {
      pathPtr[d] = p;
      MemorySegment s = w.read(p);
      long node = nodeAt(p);
      int n = format.count(s, node);
      int i = format.search(s, node, n, key, strict);
      if (i == n) {
        i = n - 1;
      }
      pathIdx[d] = i;
      p = format.child(s, node, i);
    }
    pathPtr[w.height - 1] = p;
  }

  private void splitLeafAndInsert(int leafDepth, int pos, long key, long rowId) {
    long leaf = pathPtr[leafDepth];
    if (!w.hasFreeSlot(pageOf(leaf))) {
      leafPages.split(leafDepth);
      leaf = pathPtr[leafDepth];
    }
    MemorySegment s = w.write(leaf);
    long node = nodeAt(leaf);
    int n = format.count(s, node);
    for (int i = 0; i < n; i++) {
      scratchKeys[i] = format.key(s, node, i);
      scratchValues[i] = format.rowId(s, node, i);
    }
    System.arraycopy(scratchKeys, pos, scratchKeys, pos + 1, n - pos);
    System.arraycopy(scratchValues, pos, scratchValues, pos + 1, n - pos);
    scratchKeys[pos] = key;
    scratchValues[pos] = rowId;
    n++;
    int m = n / 2;
    long right = w.allocNode(pageOf(leaf), CacheFirstFormat.NODE_LEAF, 0);
    MemorySegment rs = w.write(right);
    long rnode = nodeAt(right);
    for (int i = m; i < n; i++) {
      format.setKey(rs, rnode, i - m, scratchKeys[i]);
      format.setRowId(rs, rnode, i - m, scratchValues[i]);
    }
    format.setCount(rs, rnode, n - m);
    for (int i = 0; i < m; i++) {
      format.setKey(s, node, i, scratchKeys[i]);
      format.setRowId(s, node, i, scratchValues[i]);
    }
    format.setCount(s, node, m);
    format.setNext(rs, rnode, format.next(s, node));
    format.setNext(s, node, right);
    nodes.insertIntoParent(leafDepth - 1, leaf, scratchKeys[m - 1], right);
  }
}
