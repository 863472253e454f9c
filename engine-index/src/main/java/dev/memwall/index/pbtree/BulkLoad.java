package dev.memwall.index.pbtree;

import static dev.memwall.index.pbtree.NodeAccess.INT;
import static dev.memwall.index.pbtree.NodeAccess.LONG;
import static dev.memwall.index.pbtree.NodeAccess.SHORT;
import static dev.memwall.index.pbtree.NodeFormat.KEYNUM;
import static dev.memwall.index.pbtree.NodeFormat.LEVEL;
import static dev.memwall.index.pbtree.NodeFormat.NEXT;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.node.LevelSizes;
import dev.memwall.index.node.NodePool;
import java.lang.foreign.MemorySegment;

/**
 * Building a pB+-tree bottom-up from sorted entries, behind
 * {@link PrefetchingBPlusTree#bulkload(EngineMemory, PbTreeConfig, SortedEntries, double)}: it
 * sizes the levels for the fill factor, allocates each level as one run of consecutive nodes,
 * writes the leaves, then each level of separators up to the root, and fills the external
 * jump-pointer array.
 *
 * <p>It exists apart from the tree because building is a one-off pass with its own arithmetic
 * (entries per leaf, children per node, nodes per level, the last two through
 * {@link dev.memwall.index.node.LevelSizes}, which the CSB+-tree shares) that no other operation
 * of the tree needs.
 *
 * <p>Ownership: {@link #load} creates the tree and hands it to the caller, closing it first if the
 * build fails. Thread safety: stateless; the tree is seen by no one else until it is returned. Bad
 * input: the caller validates the entries and the fill factor (({@link LevelSizes#checkFill})) first; entries
 * that need more nodes than one pool addresses are refused with {@link IllegalArgumentException}
 * before anything is allocated.
 */
final class BulkLoad {
  private BulkLoad() {}

  /**
   * A tree of {@code entries} (validated, sorted) whose leaves hold {@code round(fill * L)} entries
   * and non-leaves {@code round(fill * fanout)} children, spread evenly.
   */
  static PrefetchingBPlusTree load(EngineMemory memory, PbTreeConfig config, SortedEntries entries,
      double fillFactor) {
    NodeFormat format = new NodeFormat(config.keyType(), config.widthLines());
    long n = entries.size();
    int perLeaf = LevelSizes.perNode(fillFactor, format.leafEntries(), 1);
    int perInner = LevelSizes.perNode(fillFactor, format.fanout(), 2);
    long leaves = Math.max(1, (n + perLeaf - 1) / perLeaf);
    long total = LevelSizes.totalNodes(leaves, perInner);
    if (total > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(n + " entries need " + total + " nodes of " + format.widthLines()
          + " lines, more than one node pool addresses");
    }
    PrefetchingBPlusTree tree = new PrefetchingBPlusTree(memory, config, total + total / 8 + 16, leaves);
    try {
      build(tree, entries, (int) leaves, perInner, fillFactor);
    } catch (RuntimeException | Error e) {
      tree.close();
      throw e;
    }
    return tree;
  }

  private static void build(PrefetchingBPlusTree tree, SortedEntries entries, int leaves, int perInner, double fill) {
    NodeAccess nodes = tree.nodes;
    NodePool pool = nodes.pool;
    long n = entries.size();
    int firstLeaf = pool.allocateRun(leaves);
    MemorySegment s = pool.segment();
    long at = 0;
    for (int i = 0; i < leaves; i++) {
      int leaf = firstLeaf + i;
      nodes.initLeaf(s, leaf, i + 1 < leaves ? leaf + 1 : -1);
      long off = pool.offset(leaf);
      int m = LevelSizes.share(n, leaves, i);
      for (int e = 0; e < m; e++, at++) {
        nodes.setLeafKey(s, off, e, entries.key(at));
        s.set(LONG, off + nodes.rowIdOffset + 8L * e, entries.rowId(at));
      }
      s.set(SHORT, off + KEYNUM, (short) m);
    }
    int levelFirst = firstLeaf;
    int levelCount = leaves;
    long[] minKeys = null; // for levels >= 1; leaves read their first key
    int level = 0;
    while (levelCount > 1) {
      int parents = (int) LevelSizes.parentCount(levelCount, perInner);
      int first = pool.allocateRun(parents);
      s = pool.segment();
      long[] parentMins = new long[parents];
      int child = 0;
      for (int p = 0; p < parents; p++) {
        int node = first + p;
        long off = pool.offset(node);
        int children = LevelSizes.share(levelCount, parents, p);
        s.set(SHORT, off + KEYNUM, (short) (children - 1));
        s.set(SHORT, off + LEVEL, (short) (level + 1));
        s.set(INT, off + NEXT, p + 1 < parents ? node + 1 : -1);
        for (int c = 0; c < children; c++, child++) {
          long childMin = minKeys == null ? nodes.leafKey(s, pool.offset(levelFirst + child), 0) : minKeys[child];
          if (c == 0) {
            parentMins[p] = childMin;
          } else {
            nodes.setInnerKey(s, off, c - 1, childMin);
          }
          s.set(INT, off + nodes.childOffset + 4L * c, levelFirst + child);
        }
      }
      minKeys = parentMins;
      tree.levelNodes[level + 1] = parents;
      levelFirst = first;
      levelCount = parents;
      level++;
    }
    tree.root = levelFirst;
    tree.height = level + 1;
    tree.publishRoot();
    tree.size = n;
    tree.leafCount = leaves;
    tree.levelNodes[0] = leaves;
    if (tree.external != null) {
      tree.external.bulkload(firstLeaf, leaves, fill);
    }
  }
}
