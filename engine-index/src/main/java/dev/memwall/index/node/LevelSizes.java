package dev.memwall.index.node;

/**
 * The level sizes of a tree bulkloaded bottom-up, as the pB+-tree and the CSB+-tree build them:
 * each level's nodes are spread evenly under parents of at most {@code perInner} children and at
 * least two, up to a single root. Both trees size their node pools and levels, fill their nodes
 * and spread entries and children over them with this one copy.
 *
 * <p>Thread safety: stateless. Bad input: {@link #checkFill} refuses a fill factor with {@link
 * IllegalArgumentException}; nothing else is checked: callers pass counts of at least 1 and
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

  /**
   * Refuses a bulkload fill factor outside (0, 1].
   *
   * @throws IllegalArgumentException naming the fill factor
   */
  public static void checkFill(double fillFactor) {
    if (!(fillFactor > 0 && fillFactor <= 1)) {
      throw new IllegalArgumentException("fill factor must be in (0, 1], got " + fillFactor);
    }
  }

  /**
   * Entries (or children) a bulkloaded node of {@code capacity} gets at {@code fillFactor}:
   * {@code round(fillFactor * capacity)}, at least {@code min} and at most {@code capacity}.
   */
  public static int perNode(double fillFactor, int capacity, int min) {
    return Math.max(min, Math.min(capacity, (int) Math.round(fillFactor * capacity)));
  }

  /**
   * The size of part {@code i} when {@code total} items are spread evenly over {@code parts}
   * parts: {@code total / parts}, one more for the first {@code total % parts} parts.
   */
  public static int share(long total, int parts, int i) {
    return (int) (total / parts + (i < total % parts ? 1 : 0));
  }
}
