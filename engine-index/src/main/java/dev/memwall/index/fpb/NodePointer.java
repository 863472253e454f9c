package dev.memwall.index.fpb;

/**
 * The node pointers of the cache-first tree: {@code (logical page << 16) | line}, where line is
 * the node's first cache line in its page, and {@link #NULL} for none (the last leaf's sibling).
 * Pointers name logical pages, so a page that moves to another physical page keeps its nodes'
 * pointers (see the package documentation, Durability).
 *
 * <p>Why a class: the writer, the readers and the invariant check decode pointers alike; one place
 * keeps them in step. Static methods on values, safe from any thread. They do not check their
 * input, except {@link #sane}, which a reader calls on pointers it read before validating them.
 */
final class NodePointer {
  /** No node: the sibling pointer of the last leaf, or a failed reader descent. */
  static final long NULL = -1;

  private NodePointer() {}

  /** The pointer to the node at {@code line} of logical page {@code page}. */
  static long ptr(int page, int line) {
    return ((long) page << 16) | line;
  }

  static int pageOf(long ptr) {
    return (int) (ptr >>> 16);
  }

  static int lineOf(long ptr) {
    return (int) (ptr & 0xFFFF);
  }

  /** The byte offset of the node in its page. */
  static long nodeAt(long ptr) {
    return (long) lineOf(ptr) * CacheFirstFormat.LINE_BYTES;
  }

  /**
   * Whether {@code ptr} names a node slot on one of the logical pages {@code 0 .. pages-1}: a sanity
   * check of pointers a reader read, which may be torn until validated. {@code pages} may come from
   * any published state (an older one only makes a pointer to a newer page fail, and the read retry).
   */
  static boolean sane(long ptr, int pages, CacheFirstFormat format) {
    int page = pageOf(ptr);
    return page >= 0 && page < pages && format.slotOf(lineOf(ptr)) >= 0;
  }
}
