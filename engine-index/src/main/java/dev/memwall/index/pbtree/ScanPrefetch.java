package dev.memwall.index.pbtree;

/** Whether a range scan prefetches leaves through the jump-pointer array. */
public enum ScanPrefetch {
  /**
   * Prefetch when the range, estimated from the search paths of both end keys, holds at least
   * {@link PbTreeConfig#minPrefetchEntries()} entries (seed 002: not worth it below about 100).
   */
  AUTO,
  /** Prefetch whenever the tree has a jump-pointer array. */
  ALWAYS,
  /** Never prefetch: follow the leaf chain only. */
  NEVER
}
