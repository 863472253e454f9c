package dev.memwall.index.node;

/**
 * The level sizes of a tree bulkloaded bottom-up, as the pB+-tree and the CSB+-tree build them:
 * each level's nodes are spread evenly under parents of at most {@code perInner} children and at
 * least two, up to a single root. Both trees size their node pools and levels with this one copy.
 *
 * <p>Thread safety: stateless. Bad input: none is checked; callers pass counts of at least 1 and
 * {@code perInner} of at least 2.
 */
public final class LevelSizes {
  private LevelSizes() {}

  /** Nodes of the level above a level of {@code count} nodes, each with at least 2 children. */
  public static long parentCount(long count, int perInner) {
    long parents = (count + perInner - 1) / perInner;
    if (count / parents < 2) {
      parents = Math.max(1, count / 2);
    }
    return parents;
  }

  /** Nodes of all levels of a tree with {@code leaves} leaves, the leaves and the root included. */
  public static long totalNodes(long leaves, int perInner) {
    long total = 0;
    for (long count = leaves; ; count = parentCount(count, perInner)) {
      total += count;
      if (count == 1) {
        return total;
      }
    }
  }
}
