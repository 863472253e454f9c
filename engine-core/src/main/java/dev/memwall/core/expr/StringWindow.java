package dev.memwall.core.expr;

import dev.memwall.core.vector.VarCharColumn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A chunk's selected strings of a column, copied to the heap in one bulk copy of the bytes between
 * the first and the last of them, for searches that scan them all ({@link PercentLike}): string
 * {@code i} is {@code bytes()[begins()[i], ends()[i])}, in selection order, and {@link #holds()}
 * takes a result per string.
 *
 * <p>{@link #load} declines a window that would copy far more than the selected strings (a sparse
 * selection), one larger than {@value #MAX_BYTES} bytes, or strings whose offsets do not increase
 * (not valid Arrow, which the caller's string-by-string path then reports), so the heap it keeps
 * is bounded whatever the data.
 *
 * <p>Ownership and thread safety: one per kernel instance, reused chunk after chunk; not shared.
 */
final class StringWindow {
  /** The most bytes a window copies: far above a chunk of typical strings, far below the heap. */
  static final int MAX_BYTES = 1 << 20;
  /** A window may span at most this many times the selected strings' bytes (plus a little). */
  private static final int MAX_SPREAD = 4;

  private byte[] bytes = new byte[0];
  private final int[] begins = new int[Chunk.CAPACITY];
  private final int[] ends = new int[Chunk.CAPACITY];
  private final boolean[] holds = new boolean[Chunk.CAPACITY];
  private int strings;

  /**
   * Copies the strings of the chunk's selected rows of {@code column}; returns false, copying
   * nothing, when the window is declined (see the class comment).
   */
  boolean load(Chunk chunk, VarCharColumn column) {
    int start = chunk.start();
    int n = chunk.selected();
    long selectedBytes = 0;
    int previousEnd = Integer.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      int row = start + chunk.position(i);
      int begin = column.offset(row);
      int end = column.offset(row + 1);
      if (begin < previousEnd || end < begin) {
        return false;
      }
      begins[i] = begin;
      ends[i] = end;
      selectedBytes += end - begin;
      previousEnd = end;
    }
    if (n == 0) {
      strings = 0;
      return true;
    }
    int low = begins[0];
    long span = (long) ends[n - 1] - low;
    if (span > MAX_BYTES || span > MAX_SPREAD * selectedBytes + 1024) {
      return false;
    }
    if (bytes.length < span) {
      bytes = new byte[(int) Math.min(MAX_BYTES, Math.max(span, 2L * bytes.length))];
    }
    MemorySegment.copy(column.bytes(), ValueLayout.JAVA_BYTE, low, bytes, 0, (int) span);
    for (int i = 0; i < n; i++) {
      begins[i] -= low;
      ends[i] -= low;
    }
    strings = n;
    return true;
  }

  byte[] bytes() {
    return bytes;
  }

  int[] begins() {
    return begins;
  }

  int[] ends() {
    return ends;
  }

  boolean[] holds() {
    return holds;
  }

  /** How many strings the window holds. */
  int strings() {
    return strings;
  }
}
