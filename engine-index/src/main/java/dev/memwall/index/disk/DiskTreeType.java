package dev.memwall.index.disk;

/**
 * Which disk tree a {@link DiskIndex} is: one of the fpB+-trees of seed 002 chapter 3 or one of their
 * baselines. All but {@link #FPB_CACHE_FIRST} are {@link DiskBPlusTree}s, differing in their
 * {@link dev.memwall.index.page.PageFormat page format}; the ordinal is stored in every tree's file,
 * so constants are only ever appended.
 */
public enum DiskTreeType {
  /** Disk-first fpB+-tree: a cache-optimized tree inside every page (seed 002 section 3.3.3). */
  FPB_DISK_FIRST,
  /** Disk-optimized B+-tree with slotted pages: the baseline of seed 002 chapter 3. */
  SLOTTED,
  /** Disk-optimized B+-tree with micro-indexed key arrays. */
  MICRO_INDEX,
  /**
   * Cache-first fpB+-tree: a prefetching B+-tree of cache-line nodes placed onto pages
   * ({@code dev.memwall.index.fpb.CacheFirstTree}, seed 002 section 3.3.4).
   */
  FPB_CACHE_FIRST,
  /**
   * Disk-optimized B+-tree whose leaf pages are the flash-aware leaf of Ross's EWOM paper
   * ({@code dev.memwall.index.flash.FlashLeafFormat}): inserts and deletes only clear bits until the
   * page's erased slots run out; non-leaf pages are slotted.
   */
  FLASH_LEAF
}
