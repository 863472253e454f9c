package dev.memwall.index.disk;

/** The in-page organization of a {@link DiskBPlusTree}: the fpB+-tree or one of its baselines. */
public enum PageLayout {
  /** Disk-first fpB+-tree: a cache-optimized tree inside every page (seed 002 section 3.3.3). */
  FPB_DISK_FIRST,
  /** Disk-optimized B+-tree with slotted pages: the baseline of seed 002 chapter 3. */
  SLOTTED,
  /** Disk-optimized B+-tree with micro-indexed key arrays. */
  MICRO_INDEX
}
