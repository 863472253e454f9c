package dev.memwall.index.pbtree;

import static dev.memwall.index.pbtree.NodeAccess.INT;
import static dev.memwall.index.pbtree.NodeAccess.LONG;
import static dev.memwall.index.pbtree.NodeAccess.SHORT;
import static dev.memwall.index.pbtree.NodeFormat.INNER_KEYS;
import static dev.memwall.index.pbtree.NodeFormat.KEYNUM;
import static dev.memwall.index.pbtree.NodeFormat.LEAF_KEYS;
import static dev.memwall.index.pbtree.NodeFormat.NEXT;

import dev.memwall.index.RowIds;
import dev.memwall.index.node.NodeFetch;
import java.lang.foreign.MemorySegment;

/**
 * Point lookups of a tree without optimistic readers, behind {@link PrefetchingBPlusTree#search},
 * {@link PrefetchingBPlusTree#searchFirst} and {@link PrefetchingBPlusTree#contains}: a descent
 * from the root that fetches each node whole when the config asks for it, then a walk along the
 * leaf chain over the equal keys.
 *
 * <p>It exists apart from the tree so the read loops sit together, away from the writer and the
 * scans; the methods are static, direct calls the JIT can inline into the tree's public methods,
 * and the loops are the ones the tree ran itself.
 *
 * <p>Ownership: reads the tree's nodes and owns nothing. Thread safety: any number of lookups may
 * run while no writer does (with optimistic readers the tree calls {@link OptimisticReads}
 * instead). Bad input: the tree checks that it is open and that the key fits before calling.
 */
final class PointLookups {
  private PointLookups() {}

  /**
   * The leaf reached by descending for the first entry {@code >= key}, fetching each inner node
   * whole when the config asks for it; the folded loads of those fetches are consumed here.
   */
  static int descendLower(PrefetchingBPlusTree tree, MemorySegment s, long key) {
    NodeAccess nodes = tree.nodes;
    int node = tree.root;
    long sink = 0;
    for (int level = tree.height - 1; level > 0; level--) {
      long off = (long) node * nodes.nodeBytes;
      if (nodes.fetch) {
        sink += nodes.touchRest(s, off);
      }
      int n = s.get(SHORT, off + KEYNUM);
      int j = nodes.bound(s, off + INNER_KEYS, n, key, false);
      node = s.get(INT, off + nodes.childOffset + 4L * j);
    }
    NodeFetch.consume(sink);
    return node;
  }

  /** Appends every row id stored under {@code key} to {@code out} in leaf order; returns how many. */
  static int search(PrefetchingBPlusTree tree, long key, RowIds out) {
    NodeAccess nodes = tree.nodes;
    MemorySegment s = nodes.pool.segment();
    long off = (long) descendLower(tree, s, key) * nodes.nodeBytes;
    long sink = nodes.fetch ? nodes.touchRest(s, off) : 0;
    int n = s.get(SHORT, off + KEYNUM);
    int p = nodes.bound(s, off + LEAF_KEYS, n, key, false);
    int found = 0;
    while (true) {
      for (; p < n; p++) {
        if (nodes.leafKey(s, off, p) != key) {
          NodeFetch.consume(sink);
          return found;
        }
        out.add(s.get(LONG, off + nodes.rowIdOffset + 8L * p));
        found++;
      }
      int next = s.get(INT, off + NEXT);
      if (next < 0) {
        NodeFetch.consume(sink);
        return found;
      }
      off = (long) next * nodes.nodeBytes;
      n = s.get(SHORT, off + KEYNUM);
      p = 0;
    }
  }

  /** The row id of the first entry under {@code key}, or {@code absent} if there is none. */
  static long searchFirst(PrefetchingBPlusTree tree, long key, long absent) {
    NodeAccess nodes = tree.nodes;
    MemorySegment s = nodes.pool.segment();
    long at = firstEntryAtOrAfter(tree, s, key, nodes.fetch);
    if (at < 0) {
      return absent;
    }
    long off = (at >>> 32) * nodes.nodeBytes;
    int p = (int) at;
    return nodes.leafKey(s, off, p) == key ? s.get(LONG, off + nodes.rowIdOffset + 8L * p) : absent;
  }

  /** Whether any entry has {@code key}. */
  static boolean contains(PrefetchingBPlusTree tree, long key) {
    NodeAccess nodes = tree.nodes;
    MemorySegment s = nodes.pool.segment();
    long at = firstEntryAtOrAfter(tree, s, key, false);
    return at >= 0 && nodes.leafKey(s, (at >>> 32) * nodes.nodeBytes, (int) at) == key;
  }

  /**
   * The first entry with a key {@code >= key}, as {@code leaf << 32 | position}, or -1 if there is
   * none: from the leaf the descent reaches along the leaf chain, past the leaves it does not lie
   * in (the end of the first one, empty leaves a delete left). With {@code fetchLeaf} the first
   * leaf is fetched whole before it is searched, as {@link #search} does.
   */
  private static long firstEntryAtOrAfter(PrefetchingBPlusTree tree, MemorySegment s, long key, boolean fetchLeaf) {
    NodeAccess nodes = tree.nodes;
    int leaf = descendLower(tree, s, key);
    long off = (long) leaf * nodes.nodeBytes;
    if (fetchLeaf) {
      NodeFetch.consume(nodes.touchRest(s, off));
    }
    int n = s.get(SHORT, off + KEYNUM);
    int p = nodes.bound(s, off + LEAF_KEYS, n, key, false);
    while (p == n) {
      leaf = s.get(INT, off + NEXT);
      if (leaf < 0) {
        return -1;
      }
      off = (long) leaf * nodes.nodeBytes;
      n = s.get(SHORT, off + KEYNUM);
      p = 0;
    }
    return (long) leaf << 32 | p;
  }
}
