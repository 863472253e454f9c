package dev.memwall.index.pbtree;

import static dev.memwall.index.pbtree.NodeAccess.INT;
import static dev.memwall.index.pbtree.NodeAccess.SHORT;
import static dev.memwall.index.pbtree.NodeFormat.KEYNUM;
import static dev.memwall.index.pbtree.NodeFormat.LEVEL;
import static dev.memwall.index.pbtree.NodeFormat.NEXT;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The walk behind {@link PrefetchingBPlusTree#checkInvariants()} (which lists what is checked):
 * one descent from the root that records each level's nodes in key order, then compares the
 * sibling chains, the external jump-pointer array and the tree's counts with what it met.
 *
 * <p>It exists apart from the tree because it is checking code, used by tests and when debugging:
 * it reads every node and keeps per-level lists of them, which none of the tree's operations does.
 *
 * <p>Ownership: one instance per check; it reads the tree's nodes and owns only its bookkeeping.
 * Thread safety: the tree must not be modified while the check runs. Bad input: a tree that breaks
 * an invariant is reported with {@link IllegalStateException} describing the first violation; a
 * child id outside the pool is reported before it is read.
 */
final class InvariantCheck {
  private final PrefetchingBPlusTree tree;
  private final NodeAccess nodes;
  private final MemorySegment s;
  /** Per level, the nodes met in key order; {@link #counts} says how many of each array are used. */
  private final List<int[]> levels = new ArrayList<>();
  private final int[] counts;

  InvariantCheck(PrefetchingBPlusTree tree) {
    this.tree = tree;
    this.nodes = tree.nodes;
    this.s = nodes.pool.segment();
    for (int i = 0; i < tree.height; i++) {
      levels.add(new int[16]);
    }
    this.counts = new int[tree.height];
  }

  /**
   * Walks the tree and checks it.
   *
   * @throws IllegalStateException describing the first violation
   */
  void run() {
    int height = tree.height;
    long entries = walk(tree.root, height - 1, Long.MIN_VALUE, Long.MAX_VALUE);
    if (entries != tree.size) {
      throw new IllegalStateException("tree holds " + entries + " entries but counts " + tree.size);
    }
    if (counts[0] != tree.leafCount) {
      throw new IllegalStateException("tree has " + counts[0] + " leaves but counts " + tree.leafCount);
    }
    if (height > 1 && s.get(SHORT, nodes.pool.offset(tree.root) + KEYNUM) < 1) {
      throw new IllegalStateException("non-leaf root has fewer than two children");
    }
    for (int level = 0; level < height; level++) {
      if (counts[level] != tree.levelNodes[level]) {
        throw new IllegalStateException("level " + level + " has " + counts[level] + " nodes but counts "
            + tree.levelNodes[level]);
      }
      int[] order = levels.get(level);
      for (int i = 0; i < counts[level]; i++) {
        int next = s.get(INT, nodes.pool.offset(order[i]) + NEXT);
        int expected = i + 1 < counts[level] ? order[i + 1] : -1;
        if (next != expected) {
          throw new IllegalStateException("level " + level + ": node " + order[i] + " links to " + next
              + " but the next node in key order is " + expected);
        }
      }
    }
    if (tree.external != null) {
      tree.external.check(levels.get(0), counts[0]);
    }
  }

  /** Checks the subtree of {@code node}, whose keys must lie in {@code [lo, hi]}; returns its entries. */
  private long walk(int node, int level, long lo, long hi) {
    if (node < 0 || node >= nodes.pool.allocatedNodes()) {
      throw new IllegalStateException("node id " + node + " outside the pool (" + nodes.pool.allocatedNodes()
          + " nodes)");
    }
    long off = nodes.pool.offset(node);
    int storedLevel = s.get(SHORT, off + LEVEL);
    if (storedLevel != level) {
      throw new IllegalStateException("node " + node + " says level " + storedLevel + " but sits at level " + level);
    }
    int[] order = levels.get(level);
    if (counts[level] == order.length) {
      order = Arrays.copyOf(order, order.length * 2);
      levels.set(level, order);
    }
    order[counts[level]++] = node;
    int n = s.get(SHORT, off + KEYNUM);
    checkKeys(off, node, n, level == 0, lo, hi);
    if (level == 0) {
      return n;
    }
    long entries = 0;
    for (int c = 0; c <= n; c++) {
      long childLo = c == 0 ? lo : nodes.innerKey(s, off, c - 1);
      long childHi = c == n ? hi : nodes.innerKey(s, off, c);
      entries += walk(s.get(INT, off + nodes.childOffset + 4L * c), level - 1, childLo, childHi);
    }
    return entries;
  }

  /**
   * Checks that the node at {@code off} holds a count {@code n} within its capacity and keys in
   * order within {@code [lo, hi]}: a leaf's entry keys or an inner node's separators.
   */
  private void checkKeys(long off, int node, int n, boolean leaf, long lo, long hi) {
    String kind = leaf ? "leaf" : "node";
    int capacity = leaf ? nodes.leafEntries : nodes.innerKeys;
    if (n < 0 || n > capacity) {
      throw new IllegalStateException(kind + " " + node + " holds " + n + (leaf ? " entries" : " keys")
          + ", capacity " + capacity);
    }
    long previous = lo;
    for (int i = 0; i < n; i++) {
      long k = leaf ? nodes.leafKey(s, off, i) : nodes.innerKey(s, off, i);
      if (k < previous || k > hi) {
        throw new IllegalStateException(kind + " " + node + (leaf ? " key " : " separator ") + i + " = " + k
            + " out of order or outside [" + lo + ", " + hi + "]");
      }
      previous = k;
    }
  }
}
