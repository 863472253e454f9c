package dev.memwall.index.pbtree;

import static dev.memwall.index.pbtree.NodeAccess.INT;
import static dev.memwall.index.pbtree.NodeAccess.LONG;
import static dev.memwall.index.pbtree.NodeAccess.SHORT;
import static dev.memwall.index.pbtree.NodeFormat.INNER_KEYS;
import static dev.memwall.index.pbtree.NodeFormat.KEYNUM;
import static dev.memwall.index.pbtree.NodeFormat.LEAF_KEYS;
import static dev.memwall.index.pbtree.NodeFormat.LEVEL;
import static dev.memwall.index.pbtree.NodeFormat.NEXT;
import static dev.memwall.index.pbtree.PrefetchingBPlusTree.MAX_HEIGHT;

import dev.memwall.index.node.NodeFetch;
import dev.memwall.index.node.NodePool;
import dev.memwall.index.node.NodeStamps;
import java.lang.foreign.MemorySegment;

/**
 * The single writer of a tree, behind {@link PrefetchingBPlusTree#insert} and
 * {@link PrefetchingBPlusTree#delete}: an insert goes after the entries with an equal key, splits a
 * full leaf in two and carries the separator up the recorded path, splitting full non-leaves and
 * growing a new root when the old one splits; a delete is lazy (the entry leaves its leaf, leaves
 * are never merged or freed). With optimistic readers every node it changes is marked in its
 * version stamp for the whole operation ({@link #changing}, {@link #publishChanges}), so a reader
 * sees a split entirely or not at all.
 *
 * <p>It exists apart from the tree because it is the only code that changes a tree once built
 * (create and {@link BulkLoad} only set up a new one), and it keeps the state only a writer needs:
 * the descent path, the merge scratch and the nodes marked in the current operation.
 *
 * <p>Ownership: the tree owns it and the nodes it writes; it owns its scratch arrays. Thread
 * safety: one writer at a time (the tree's contract); with optimistic readers, concurrent lookups
 * are safe through the stamps. Bad input: the tree checks that it is open and that the key fits
 * before calling; a split beyond {@link PrefetchingBPlusTree#MAX_HEIGHT} levels throws
 * {@link IllegalStateException}.
 */
final class TreeWriter {
  private final PrefetchingBPlusTree tree;
  private final NodeAccess nodes;
  private final NodePool pool;
  /** Per-node version stamps; null unless {@link PbTreeConfig#optimisticReaders()}. */
  private final NodeStamps stamps;
  /** Nodes marked as changing during the current operation (optimistic mode). */
  private final int[] changing = new int[2 * MAX_HEIGHT + 2];
  private int changingCount;
  // the descent path of the current insert, and merge scratch for splits
  private final int[] pathNode = new int[MAX_HEIGHT];
  private final int[] pathSlot = new int[MAX_HEIGHT];
  private final long[] scratchKeys;
  private final long[] scratchValues;

  TreeWriter(PrefetchingBPlusTree tree, NodeStamps stamps) {
    this.tree = tree;
    this.nodes = tree.nodes;
    this.pool = nodes.pool;
    this.stamps = stamps;
    int scratch = Math.max(nodes.innerKeys + 2, nodes.leafEntries + 1);
    this.scratchKeys = new long[scratch];
    this.scratchValues = new long[scratch];
  }

  /**
   * Adds the entry {@code (key, rowId)} after any with an equal key; the nodes it marked are
   * published even if it fails.
   */
  void insert(long key, long rowId) {
    try {
      insertEntry(key, rowId);
    } finally {
      publishChanges();
    }
  }

  /** Marks {@code node} as changing until {@link #publishChanges} (optimistic mode only). */
  private void changing(int node) {
    if (stamps == null) {
      return;
    }
    for (int i = 0; i < changingCount; i++) {
      if (changing[i] == node) {
        return;
      }
    }
    stamps.cover(node);
    stamps.beginWrite(node);
    changing[changingCount++] = node;
  }

  /** Publishes every node marked by {@link #changing} (even stamps again). */
  private void publishChanges() {
    for (int i = 0; i < changingCount; i++) {
      stamps.endWrite(changing[i]);
    }
    changingCount = 0;
  }

  private void insertEntry(long key, long rowId) {
    MemorySegment s = pool.segment();
    int node = tree.root;
    for (int level = tree.height - 1; level > 0; level--) {
      long off = pool.offset(node);
      if (nodes.fetch) {
        NodeFetch.consume(nodes.touchRest(s, off));
      }
      int n = s.get(SHORT, off + KEYNUM);
      int j = nodes.bound(s, off + INNER_KEYS, n, key, true);
      pathNode[level] = node;
      pathSlot[level] = j;
      node = s.get(INT, off + nodes.childOffset + 4L * j);
    }
    long off = pool.offset(node);
    int n = s.get(SHORT, off + KEYNUM);
    int p = nodes.bound(s, off + LEAF_KEYS, n, key, true);
    tree.modifications++;
    if (n < nodes.leafEntries) {
      changing(node);
      int kb = nodes.keyBytes;
      MemorySegment.copy(s, off + LEAF_KEYS + (long) kb * p, s, off + LEAF_KEYS + (long) kb * (p + 1),
          (long) kb * (n - p));
      MemorySegment.copy(s, off + nodes.rowIdOffset + 8L * p, s, off + nodes.rowIdOffset + 8L * (p + 1),
          8L * (n - p));
      nodes.setLeafKey(s, off, p, key);
      s.set(LONG, off + nodes.rowIdOffset + 8L * p, rowId);
      s.set(SHORT, off + KEYNUM, (short) (n + 1));
    } else {
      splitLeaf(node, p, key, rowId);
    }
    tree.size++;
  }

  private void splitLeaf(int leaf, int p, long key, long rowId) {
    int fresh = pool.allocate();
    changing(leaf);
    changing(fresh);
    MemorySegment s = pool.segment();
    long off = pool.offset(leaf);
    long freshOff = pool.offset(fresh);
    int n = nodes.leafEntries;
    for (int i = 0, from = 0; i <= n; i++) {
      if (i == p) {
        scratchKeys[i] = key;
        scratchValues[i] = rowId;
      } else {
        scratchKeys[i] = nodes.leafKey(s, off, from);
        scratchValues[i] = s.get(LONG, off + nodes.rowIdOffset + 8L * from);
        from++;
      }
    }
    int total = n + 1;
    int left = (total + 1) / 2;
    for (int i = 0; i < left; i++) {
      nodes.setLeafKey(s, off, i, scratchKeys[i]);
      s.set(LONG, off + nodes.rowIdOffset + 8L * i, scratchValues[i]);
    }
    nodes.initLeaf(s, fresh, s.get(INT, off + NEXT));
    for (int i = left; i < total; i++) {
      nodes.setLeafKey(s, freshOff, i - left, scratchKeys[i]);
      s.set(LONG, freshOff + nodes.rowIdOffset + 8L * (i - left), scratchValues[i]);
    }
    s.set(SHORT, off + KEYNUM, (short) left);
    s.set(SHORT, freshOff + KEYNUM, (short) (total - left));
    s.set(INT, off + NEXT, fresh);
    tree.leafCount++;
    tree.levelNodes[0]++;
    if (tree.external != null) {
      tree.external.insertAfter(leaf, fresh);
    }
    insertIntoParent(1, scratchKeys[left], fresh);
  }

  /** Inserts separator {@code key} and its right child {@code child} into the path node at {@code level}. */
  private void insertIntoParent(int level, long key, int child) {
    if (level == tree.height) {
      if (tree.height == MAX_HEIGHT) {
        throw new IllegalStateException("tree height limit " + MAX_HEIGHT + " reached");
      }
      int newRoot = pool.allocate();
      changing(newRoot);
      MemorySegment s = pool.segment();
      long off = pool.offset(newRoot);
      s.set(SHORT, off + KEYNUM, (short) 1);
      s.set(SHORT, off + LEVEL, (short) level);
      s.set(INT, off + NEXT, -1);
      nodes.setInnerKey(s, off, 0, key);
      s.set(INT, off + nodes.childOffset, tree.root);
      s.set(INT, off + nodes.childOffset + 4, child);
      tree.root = newRoot;
      tree.levelNodes[tree.height] = 1;
      tree.height++;
      tree.publishRoot();
      return;
    }
    int node = pathNode[level];
    int j = pathSlot[level]; // child j split: the key goes to key slot j, the child to child slot j + 1
    MemorySegment s = pool.segment();
    long off = pool.offset(node);
    int n = s.get(SHORT, off + KEYNUM);
    int kb = nodes.keyBytes;
    if (n < nodes.innerKeys) {
      changing(node);
      MemorySegment.copy(s, off + INNER_KEYS + (long) kb * j, s, off + INNER_KEYS + (long) kb * (j + 1),
          (long) kb * (n - j));
      MemorySegment.copy(s, off + nodes.childOffset + 4L * (j + 1), s, off + nodes.childOffset + 4L * (j + 2),
          4L * (n - j));
      nodes.setInnerKey(s, off, j, key);
      s.set(INT, off + nodes.childOffset + 4L * (j + 1), child);
      s.set(SHORT, off + KEYNUM, (short) (n + 1));
      return;
    }
    int fresh = pool.allocate();
    changing(node);
    changing(fresh);
    s = pool.segment();
    off = pool.offset(node);
    long freshOff = pool.offset(fresh);
    // merged keys in scratchKeys[0..n], children in scratchValues[0..n+1]
    for (int i = 0, from = 0; i <= n; i++) {
      scratchKeys[i] = i == j ? key : nodes.innerKey(s, off, from++);
    }
    for (int i = 0, from = 0; i <= n + 1; i++) {
      scratchValues[i] = i == j + 1 ? child : s.get(INT, off + nodes.childOffset + 4L * from++);
    }
    int totalKeys = n + 1;
    int mid = totalKeys / 2; // keys [0, mid) stay, key mid moves up, keys (mid, n] go right
    for (int i = 0; i < mid; i++) {
      nodes.setInnerKey(s, off, i, scratchKeys[i]);
    }
    for (int i = 0; i <= mid; i++) {
      s.set(INT, off + nodes.childOffset + 4L * i, (int) scratchValues[i]);
    }
    int right = totalKeys - mid - 1;
    for (int i = 0; i < right; i++) {
      nodes.setInnerKey(s, freshOff, i, scratchKeys[mid + 1 + i]);
    }
    for (int i = 0; i <= right; i++) {
      s.set(INT, freshOff + nodes.childOffset + 4L * i, (int) scratchValues[mid + 1 + i]);
    }
    s.set(SHORT, off + KEYNUM, (short) mid);
    s.set(SHORT, freshOff + KEYNUM, (short) right);
    s.set(SHORT, freshOff + LEVEL, (short) level);
    s.set(INT, freshOff + NEXT, s.get(INT, off + NEXT));
    s.set(INT, off + NEXT, fresh);
    tree.levelNodes[level]++;
    insertIntoParent(level + 1, scratchKeys[mid], fresh);
  }

  /** Removes one entry {@code (key, rowId)} if present, leaving its leaf in place even when empty. */
  boolean delete(long key, long rowId) {
    MemorySegment s = pool.segment();
    int node = PointLookups.descendLower(tree, s, key);
    long off = pool.offset(node);
    int n = s.get(SHORT, off + KEYNUM);
    int p = nodes.bound(s, off + LEAF_KEYS, n, key, false);
    while (true) {
      for (; p < n; p++) {
        if (nodes.leafKey(s, off, p) != key) {
          return false;
        }
        if (s.get(LONG, off + nodes.rowIdOffset + 8L * p) == rowId) {
          changing((int) (off / nodes.nodeBytes));
          int kb = nodes.keyBytes;
          MemorySegment.copy(s, off + LEAF_KEYS + (long) kb * (p + 1), s, off + LEAF_KEYS + (long) kb * p,
              (long) kb * (n - p - 1));
          MemorySegment.copy(s, off + nodes.rowIdOffset + 8L * (p + 1), s, off + nodes.rowIdOffset + 8L * p,
              8L * (n - p - 1));
          s.set(SHORT, off + KEYNUM, (short) (n - 1));
          publishChanges();
          tree.size--;
          tree.modifications++;
          return true;
        }
      }
      int next = s.get(INT, off + NEXT);
      if (next < 0) {
        return false;
      }
      off = pool.offset(next);
      n = s.get(SHORT, off + KEYNUM);
      p = 0;
    }
  }
}
