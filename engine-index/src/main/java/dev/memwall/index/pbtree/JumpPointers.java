package dev.memwall.index.pbtree;

/** Which jump-pointer array a {@link PrefetchingBPlusTree} keeps for prefetching range scans (seed 002 section 2.3). */
public enum JumpPointers {
  /** None: a range scan follows the leaf chain and misses at every leaf. */
  NONE,
  /**
   * External: a chunked linked list of leaf ids beside the tree; each leaf holds a hint to its
   * chunk and slot (the chunk always right, the slot possibly stale).
   */
  EXTERNAL,
  /** Internal: the parents of the leaves are linked in key order and their child ids are the array. */
  INTERNAL
}
