package dev.memwall.index.fpb;

import java.util.Arrays;

/**
 * An immutable logical-to-physical page map ({@code -1}: unmapped) in chunks of {@value #CHUNK}
 * entries: an update copies the chunk table and only the chunks it changes, so publishing a new
 * map costs {@code O(pages / CHUNK + CHUNK * changed chunks)}, not a copy of the whole map. That is
 * the reason for the chunks: every update that is not installed in place publishes a new map.
 *
 * <p>Immutable, so safe to read from any thread once published (in a {@link View}). Logical pages
 * must be {@code >= 0}; {@link #get} of a page beyond the map answers {@code -1}.
 */
final class PageMap {
  private static final int SHIFT = 10;
  static final int CHUNK = 1 << SHIFT;
  static final PageMap EMPTY = new PageMap(new int[0][]);
  private final int[][] chunks;

  private PageMap(int[][] chunks) {
    this.chunks = chunks;
  }

  /** The map of logical pages {@code 0 .. n-1} to {@code phys[0 .. n-1]}. */
  static PageMap of(int[] phys, int n) {
    int[][] chunks = new int[(n + CHUNK - 1) >>> SHIFT][];
    for (int c = 0; c < chunks.length; c++) {
      chunks[c] = new int[CHUNK];
      Arrays.fill(chunks[c], -1);
      System.arraycopy(phys, c * CHUNK, chunks[c], 0, Math.min(CHUNK, n - c * CHUNK));
    }
    return new PageMap(chunks);
  }

  /** The physical page of {@code logical}, or -1 if it has none (or is out of range). */
  int get(int logical) {
    int c = logical >>> SHIFT;
    return c < chunks.length ? chunks[c][logical & (CHUNK - 1)] : -1;
  }

  /** A copy of this map with {@code logical[i] -> phys[i]} for {@code i < n}; this map is unchanged. */
  PageMap with(int[] logical, int[] phys, int n) {
    if (n == 0) {
      return this;
    }
    int top = chunks.length;
    for (int i = 0; i < n; i++) {
      top = Math.max(top, (logical[i] >>> SHIFT) + 1);
    }
    int[][] next = Arrays.copyOf(chunks, top);
    boolean[] copied = new boolean[top];
    for (int i = 0; i < n; i++) {
      int c = logical[i] >>> SHIFT;
      if (!copied[c]) {
        copied[c] = true;
        if (next[c] == null) {
          next[c] = new int[CHUNK];
          Arrays.fill(next[c], -1);
        } else {
          next[c] = next[c].clone();
        }
      }
      next[c][logical[i] & (CHUNK - 1)] = phys[i];
    }
    return new PageMap(next);
  }
}
