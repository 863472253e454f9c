package dev.memwall.index.fpb;

/**
 * The kinds of the cache-first tree's pages, as stored in each page's header
 * ({@link CacheFirstFormat#pageKind}): leaf pages (only leaves), node pages (non-leaf nodes by
 * aggressive placement), overflow pages (leaf parents that did not fit their parent's page) and
 * the pages of the committed map chain. Constants only; the reason for a class is that the writer,
 * the commit and the invariant check must agree on them.
 */
final class PageKinds {
  static final int PAGE_LEAF = 1;
  static final int PAGE_NODES = 2;
  static final int PAGE_OVERFLOW = 3;
  static final int PAGE_MAP = 4;

  private PageKinds() {}
}
