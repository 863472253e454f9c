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
 * Batched lookups of a tree without optimistic readers, behind
 * {@link PrefetchingBPlusTree#lookupBatch}: the keys go down the tree in groups of
 * {@link PbTreeConfig#batchGroup()}, and at each level the nodes of the whole group are loaded back
 * to back (every line of each) before each key's binary search runs on cached nodes, so the
 * group's misses overlap instead of following each other.
 *
 * <p>It exists apart from {@link PointLookups} because it interleaves the traversals of many keys,
 * a loop of its own; static, so the tree reaches it with one direct call per batch.
 *
 * <p>Ownership: reads the tree's nodes and owns nothing but a per-call array of the group's
 * nodes. Thread safety: as {@link PointLookups}. Bad input: the tree checks that it is open, the
 * arrays' lengths and every key before calling, and clears {@code out}.
 */
final class BatchedLookup {
  private BatchedLookup() {}

  /**
   * Appends every row id of each of {@code keys[0 .. count)} to {@code out}; the row ids of key
   * {@code i} are {@code out[offsets[i] .. offsets[i + 1])}.
   */
  static void lookup(PrefetchingBPlusTree tree, long[] keys, int count, int[] offsets, RowIds out) {
    NodeAccess nodes = tree.nodes;
    long nodeBytes = nodes.nodeBytes;
    int root = tree.root;
    int height = tree.height;
    int group = tree.config().batchGroup();
    int[] groupNodes = new int[group];
    MemorySegment s = nodes.pool.segment();
    long sink = 0;
    for (int start = 0; start < count; start += group) {
      int g = Math.min(group, count - start);
      for (int i = 0; i < g; i++) {
        groupNodes[i] = root;
      }
      for (int level = height - 1; level > 0; level--) {
        for (int i = 0; i < g; i++) {
          sink += nodes.touchAll(s, groupNodes[i] * nodeBytes);
        }
        for (int i = 0; i < g; i++) {
          long off = groupNodes[i] * nodeBytes;
          int n = s.get(SHORT, off + KEYNUM);
          int j = nodes.bound(s, off + INNER_KEYS, n, keys[start + i], false);
          groupNodes[i] = s.get(INT, off + nodes.childOffset + 4L * j);
        }
      }
      for (int i = 0; i < g; i++) {
        sink += nodes.touchAll(s, groupNodes[i] * nodeBytes);
      }
      for (int i = 0; i < g; i++) {
        offsets[start + i] = out.size();
        long key = keys[start + i];
        long off = groupNodes[i] * nodeBytes;
        int n = s.get(SHORT, off + KEYNUM);
        int p = nodes.bound(s, off + LEAF_KEYS, n, key, false);
        collect:
        while (true) {
          for (; p < n; p++) {
            if (nodes.leafKey(s, off, p) != key) {
              break collect;
            }
            out.add(s.get(LONG, off + nodes.rowIdOffset + 8L * p));
          }
          int next = s.get(INT, off + NEXT);
          if (next < 0) {
            break;
          }
          off = next * nodeBytes;
          n = s.get(SHORT, off + KEYNUM);
          p = 0;
        }
      }
    }
    offsets[count] = out.size();
    NodeFetch.consume(sink);
  }
}
