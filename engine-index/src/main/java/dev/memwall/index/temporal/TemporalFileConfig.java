package dev.memwall.index.temporal;

/**
 * The page file parameters of a {@link PagedTemporalTable}: the page size (4, 8, 16 or 32 KiB, as
 * {@link dev.memwall.index.page.PageFile} takes), the buffer pool frames of the table's data file
 * and, alike, of its surrogate index, and the most pages the data file may grow to.
 *
 * @throws IllegalArgumentException for a page size the page file refuses, fewer than 8 frames or
 *     a page limit below 8
 */
public record TemporalFileConfig(int pageBytes, int poolFrames, long maxPages) {
  /** 8 KiB pages, 1,024 frames (8 MiB) per pool, no page limit. */
  public static final TemporalFileConfig DEFAULT = new TemporalFileConfig(8192, 1024, Integer.MAX_VALUE);

  public TemporalFileConfig {
    if (pageBytes < 4096 || pageBytes > 32768 || Integer.bitCount(pageBytes) != 1) {
      throw new IllegalArgumentException("page size must be 4, 8, 16 or 32 KiB, got " + pageBytes + " bytes");
    }
    if (poolFrames < 8 || maxPages < 8 || maxPages > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("need >= 8 pool frames and 8 .. 2^31-1 pages, got " + poolFrames + ", "
          + maxPages);
    }
  }

  /** The same configuration with {@code frames} frames per pool. */
  public TemporalFileConfig withPoolFrames(int frames) {
    return new TemporalFileConfig(pageBytes, frames, maxPages);
  }

  /** The same configuration with a data file limit of {@code pages} pages. */
  public TemporalFileConfig withMaxPages(long pages) {
    return new TemporalFileConfig(pageBytes, poolFrames, pages);
  }
}
