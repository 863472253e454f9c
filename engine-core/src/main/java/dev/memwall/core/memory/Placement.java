package dev.memwall.core.memory;

/** Where an off-heap allocation should live. */
public enum Placement {
  /** An ordinary allocation with the platform's base pages (4 KiB). */
  DEFAULT,
  /**
   * Transparent huge pages through {@link HugePages} when the allocation spans at least one huge
   * page and the platform allows it; otherwise, silently, {@link #DEFAULT}.
   */
  HUGE_PAGES
}
