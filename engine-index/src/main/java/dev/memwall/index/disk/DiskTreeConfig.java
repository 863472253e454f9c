package dev.memwall.index.disk;

import dev.memwall.index.KeyType;
import java.util.Objects;

/**
 * The parameters of a {@link DiskBPlusTree}: key type, tree type, page size, the in-page widths
 * (disk-first fpB+: non-leaf and leaf node lines; cache-first fpB+: node lines; micro-indexing:
 * sub-array lines), buffer pool frames, the
 * page limit of the file, and how many leaf pages a range scan prefetches ahead.
 *
 * <p>{@code disktrees.DiskIndexes.configFromProfile} and {@code chooseConfig} choose the widths with
 * goal G ({@link InPageWidths}, {@code MicroIndexFormat.chooseSubarrayLines},
 * {@code CacheFirstFormat.choose}) from the machine's T1 and Tnext.
 *
 * @param keyType the key type
 * @param treeType which tree, and for a {@link DiskBPlusTree} which page format
 * @param pageBytes 4096, 8192, 16384 or 32768
 * @param nonLeafLines fpB+ in-page non-leaf node width w (ignored by the other tree types)
 * @param leafLines fpB+ in-page leaf node width x (ignored by the other tree types)
 * @param subarrayLines micro-indexing sub-array size in lines (ignored by the other tree types)
 * @param poolFrames buffer pool frames (>= 8)
 * @param maxPages most pages the file may grow to
 * @param scanPrefetchPages leaf pages a range scan prefetches ahead (>= 0)
 * @param nodeLines cache-first fpB+ node width, leaves and non-leaves alike (ignored by the other
 *     tree types); the constructor without it takes {@code max(nonLeafLines, leafLines)}
 */
public record DiskTreeConfig(KeyType keyType, DiskTreeType treeType, int pageBytes, int nonLeafLines, int leafLines,
    int subarrayLines, int poolFrames, long maxPages, int scanPrefetchPages, int nodeLines) {

  /** Default pool size: 64 MiB of 8 KiB pages. */
  public static final int DEFAULT_POOL_FRAMES = 8192;
  public static final long DEFAULT_MAX_PAGES = Integer.MAX_VALUE;
  public static final int DEFAULT_SCAN_PREFETCH_PAGES = 8;

  public DiskTreeConfig {
    Objects.requireNonNull(keyType, "keyType");
    Objects.requireNonNull(treeType, "treeType");
    if (pageBytes < 4096 || pageBytes > 32768 || Integer.bitCount(pageBytes) != 1) {
      throw new IllegalArgumentException("page size must be 4, 8, 16 or 32 KiB, got " + pageBytes + " bytes");
    }
    if (nonLeafLines < 1 || nonLeafLines > 32 || leafLines < 1 || leafLines > 32 || subarrayLines < 1
        || subarrayLines > 32) {
      throw new IllegalArgumentException("in-page widths must be 1 .. 32 lines, got w=" + nonLeafLines + " x="
          + leafLines + " sub-array=" + subarrayLines);
    }
    if (nodeLines < 1 || nodeLines > 32) {
      throw new IllegalArgumentException("cache-first node width must be 1 .. 32 lines, got " + nodeLines);
    }
    if (poolFrames < 8 || maxPages < 8 || scanPrefetchPages < 0) {
      throw new IllegalArgumentException("need >= 8 pool frames, >= 8 pages and a prefetch distance >= 0, got "
          + poolFrames + ", " + maxPages + ", " + scanPrefetchPages);
    }
  }

  /** A configuration whose cache-first node width is {@code max(nonLeafLines, leafLines)}. */
  public DiskTreeConfig(KeyType keyType, DiskTreeType treeType, int pageBytes, int nonLeafLines, int leafLines,
      int subarrayLines, int poolFrames, long maxPages, int scanPrefetchPages) {
    this(keyType, treeType, pageBytes, nonLeafLines, leafLines, subarrayLines, poolFrames, maxPages, scanPrefetchPages,
        Math.max(nonLeafLines, leafLines));
  }

  public DiskTreeConfig withPoolFrames(int frames) {
    return new DiskTreeConfig(keyType, treeType, pageBytes, nonLeafLines, leafLines, subarrayLines, frames, maxPages,
        scanPrefetchPages, nodeLines);
  }

  public DiskTreeConfig withMaxPages(long pages) {
    return new DiskTreeConfig(keyType, treeType, pageBytes, nonLeafLines, leafLines, subarrayLines, poolFrames, pages,
        scanPrefetchPages, nodeLines);
  }

  public DiskTreeConfig withWidths(int w, int x) {
    return new DiskTreeConfig(keyType, treeType, pageBytes, w, x, subarrayLines, poolFrames, maxPages,
        scanPrefetchPages, nodeLines);
  }

  public DiskTreeConfig withSubarrayLines(int lines) {
    return new DiskTreeConfig(keyType, treeType, pageBytes, nonLeafLines, leafLines, lines, poolFrames, maxPages,
        scanPrefetchPages, nodeLines);
  }

  public DiskTreeConfig withTreeType(DiskTreeType other) {
    return new DiskTreeConfig(keyType, other, pageBytes, nonLeafLines, leafLines, subarrayLines, poolFrames,
        maxPages, scanPrefetchPages, nodeLines);
  }

  /** The same configuration with a cache-first node width of {@code lines}. */
  public DiskTreeConfig withNodeLines(int lines) {
    return new DiskTreeConfig(keyType, treeType, pageBytes, nonLeafLines, leafLines, subarrayLines, poolFrames,
        maxPages, scanPrefetchPages, lines);
  }

  public DiskTreeConfig withScanPrefetchPages(int pages) {
    return new DiskTreeConfig(keyType, treeType, pageBytes, nonLeafLines, leafLines, subarrayLines, poolFrames,
        maxPages, pages, nodeLines);
  }
}
