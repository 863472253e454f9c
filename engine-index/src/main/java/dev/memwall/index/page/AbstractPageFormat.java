package dev.memwall.index.page;

import java.lang.foreign.MemorySegment;

/**
 * The part every {@link PageFormat} shares: the page, key and value widths, and the checks and
 * clearing that start {@link #build}. Formats extend it and add their own in-page layout.
 *
 * <p>The hot paths (in-page binary searches) stay in the subclasses, each specialized to its own
 * layout: a shared search loop would have to fetch every probed key through a virtual call.
 *
 * <p>Thread safety: immutable; see {@link PageFormat}. Owns no memory.
 */
public abstract class AbstractPageFormat implements PageFormat {
  /** Bytes of the page. */
  protected final int pageBytes;
  /** Bytes of one key: 4 or 8. */
  protected final int kb;
  /** Bytes of one value: 4 or 8. */
  protected final int vb;

  /**
   * @throws IllegalArgumentException if a key or value width is not 4 or 8 bytes
   */
  protected AbstractPageFormat(int pageBytes, int keyBytes, int valueBytes) {
    if (keyBytes != 4 && keyBytes != 8) {
      throw new IllegalArgumentException("keys must be 4 or 8 bytes, got " + keyBytes);
    }
    if (valueBytes != 4 && valueBytes != 8) {
      throw new IllegalArgumentException("values must be 4 or 8 bytes, got " + valueBytes);
    }
    this.pageBytes = pageBytes;
    this.kb = keyBytes;
    this.vb = valueBytes;
  }

  @Override
  public final int pageBytes() {
    return pageBytes;
  }

  @Override
  public final int keyBytes() {
    return kb;
  }

  @Override
  public final int valueBytes() {
    return vb;
  }

  /**
   * Starts a {@link #build} of {@code n} entries: refuses a count outside {@code 0 ..
   * capacity()} and zeroes the page after its checksum and kind bytes (from {@link #COUNT} on).
   *
   * @throws IllegalArgumentException if {@code n} entries do not fit
   */
  protected final void startBuild(MemorySegment s, long base, int n) {
    if (n < 0 || n > capacity()) {
      throw new IllegalArgumentException(n + " entries do not fit a page of " + capacity());
    }
    s.asSlice(base + COUNT, pageBytes - COUNT).fill((byte) 0);
  }
}
