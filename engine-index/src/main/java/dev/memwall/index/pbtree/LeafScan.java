package dev.memwall.index.pbtree;

import static dev.memwall.index.pbtree.NodeAccess.INT;
import static dev.memwall.index.pbtree.NodeAccess.LONG;
import static dev.memwall.index.pbtree.NodeAccess.SHORT;
import static dev.memwall.index.pbtree.NodeFormat.INNER_KEYS;
import static dev.memwall.index.pbtree.NodeFormat.KEYNUM;
import static dev.memwall.index.pbtree.NodeFormat.LEAF_KEYS;
import static dev.memwall.index.pbtree.NodeFormat.NEXT;

import dev.memwall.index.node.NodeFetch;
import java.lang.foreign.MemorySegment;
import java.util.ConcurrentModificationException;

/**
 * The state and batch loop of one range scan, behind {@link PrefetchingBPlusTree.RangeScan}:
 * both end keys are searched first, which gives the leaves the range starts and ends in and,
 * from the two search paths, an estimate of its size; the scan then copies row ids (and keys)
 * leaf by leaf along the leaf chain, with a {@link LeafPrefetcher} loading leaves ahead through
 * the jump-pointer array when {@link ScanPrefetch} and the estimate call for it.
 *
 * <p>It exists apart from the public {@code RangeScan}, which only forwards to it, so that the
 * tree's file holds the API and this file the scan's mechanics.
 *
 * <p>Ownership: one per scan; reads the tree's nodes, owns its position and prefetcher. Thread
 * safety: none (one thread per scan); it reads no stamps, so it needs the writer stopped. Bad
 * input: {@link #next} fails with {@link ConcurrentModificationException} once the tree was
 * modified, {@link IllegalStateException} once it was closed, and {@link IllegalArgumentException}
 * when {@code keys} is shorter than {@code rowIds}; the tree checks the end keys.
 */
final class LeafScan {
  private final PrefetchingBPlusTree tree;
  private final NodeAccess nodes;
  private final long hi;
  private final long expectedModifications;
  private final MemorySegment s;
  /** Loads leaves ahead of the scan; null when it does not prefetch. */
  private final LeafPrefetcher prefetcher;
  private final long estimatedEntries;
  private long off;
  private int n;
  private int p;
  private boolean done;
  private long sink;

  LeafScan(PrefetchingBPlusTree tree, long lo, long hi, ScanPrefetch mode) {
    this.tree = tree;
    this.nodes = tree.nodes;
    this.hi = hi;
    this.expectedModifications = tree.modifications;
    this.s = nodes.pool.segment();
    int height = tree.height;
    int[] loSlots = new int[height];
    int[] hiSlots = new int[height];
    int loParent = -1;
    int node = tree.root;
    for (int level = height - 1; level > 0; level--) {
      long nodeOff = nodes.pool.offset(node);
      if (nodes.fetch) {
        sink += nodes.touchRest(s, nodeOff);
      }
      int keys = s.get(SHORT, nodeOff + KEYNUM);
      int j = nodes.bound(s, nodeOff + INNER_KEYS, keys, lo, false);
      loSlots[level] = j;
      if (level == 1) {
        loParent = node;
      }
      node = s.get(INT, nodeOff + nodes.childOffset + 4L * j);
    }
    int startLeaf = node;
    node = tree.root;
    for (int level = height - 1; level > 0; level--) {
      long nodeOff = nodes.pool.offset(node);
      int keys = s.get(SHORT, nodeOff + KEYNUM);
      int j = nodes.bound(s, nodeOff + INNER_KEYS, keys, hi, true);
      hiSlots[level] = j;
      node = s.get(INT, nodeOff + nodes.childOffset + 4L * j);
    }
    int endLeaf = node;
    this.estimatedEntries = lo > hi ? 0 : estimate(loSlots, hiSlots);
    this.off = nodes.pool.offset(startLeaf);
    this.n = s.get(SHORT, off + KEYNUM);
    this.p = nodes.bound(s, off + LEAF_KEYS, n, lo, false);
    this.done = lo > hi;
    PbTreeConfig config = tree.config();
    boolean want = switch (mode) {
      case NEVER -> false;
      case ALWAYS -> true;
      case AUTO -> estimatedEntries >= config.minPrefetchEntries();
    };
    if (!done && want && height > 1 && config.jumpPointers() != JumpPointers.NONE) {
      prefetcher = new LeafPrefetcher(tree, s, startLeaf, loParent, loSlots[1], endLeaf);
      sink += prefetcher.start();
    } else {
      prefetcher = null;
    }
  }

  /**
   * Entries between the two search paths: at each level, the slot difference times the mean
   * number of leaves under a node of the level below.
   */
  private long estimate(int[] loSlots, int[] hiSlots) {
    if (tree.height == 1 || tree.leafCount <= 1) {
      return tree.size;
    }
    double leaves = 0;
    for (int level = 1; level < tree.height; level++) {
      leaves += (hiSlots[level] - loSlots[level]) * ((double) tree.leafCount / tree.levelNodes[level - 1]);
    }
    double perLeaf = (double) tree.size / tree.leafCount;
    return (long) Math.max(0, (leaves + 1) * perLeaf);
  }

  /** Whether the scan prefetches leaves through the jump-pointer array. */
  boolean prefetching() {
    return prefetcher != null;
  }

  /** The range's size as estimated from the search paths of its end keys. */
  long estimatedEntries() {
    return estimatedEntries;
  }

  /**
   * Fills {@code rowIds} (and {@code keys}, when not null, with the matching keys) with the next
   * entries of the range, up to the array's length; returns how many, 0 once the range is exhausted.
   */
  int next(long[] keys, long[] rowIds) {
    tree.checkOpen();
    if (tree.modifications != expectedModifications) {
      throw new ConcurrentModificationException("the tree was modified during a range scan");
    }
    if (keys != null && keys.length < rowIds.length) {
      throw new IllegalArgumentException("keys holds " + keys.length + " but rowIds " + rowIds.length);
    }
    int filled = 0;
    int capacity = rowIds.length;
    while (!done && filled < capacity) {
      if (p == n) {
        int next = s.get(INT, off + NEXT);
        if (next < 0) {
          done = true;
          break;
        }
        off = nodes.pool.offset(next);
        n = s.get(SHORT, off + KEYNUM);
        p = 0;
        if (prefetcher != null) {
          sink += prefetcher.leafEntered();
        }
        continue;
      }
      int take = Math.min(n - p, capacity - filled);
      if (nodes.leafKey(s, off, p + take - 1) > hi) {
        // the range ends in this leaf: find its end
        int end = nodes.bound(s, off + LEAF_KEYS, n, hi, true);
        take = Math.max(0, Math.min(take, end - p));
        done = true;
      }
      MemorySegment.copy(s, LONG, off + nodes.rowIdOffset + 8L * p, rowIds, filled, take);
      if (keys != null) {
        for (int i = 0; i < take; i++) {
          keys[filled + i] = nodes.leafKey(s, off, p + i);
        }
      }
      filled += take;
      p += take;
    }
    NodeFetch.consume(sink);
    return filled;
  }
}
