package dev.memwall.core.expr;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * SQL {@code LIKE} with {@code %} as the only wildcard ({@code '%special%requests%'}): the text
 * before the first {@code %} must be a prefix, the text after the last one a suffix, and the pieces
 * between must occur in order in between, which a leftmost search for each piece in turn decides
 * without backtracking. Byte-wise search is exact on UTF-8, whose characters never start inside
 * another.
 *
 * <p>Two ways to run it: {@link #test} on one string where it lies, and {@link #test(StringWindow)}
 * on a window of a column's strings copied to the heap at once, for a pattern that only looks for
 * pieces ({@link #searchesWindows()}). The window's strings lie back to back, so the first piece is
 * searched for across all of them in one scan rather than string by string: a string before the
 * first occurrence cannot hold the piece, and only the string an occurrence falls in is searched
 * further. Strings of a few dozen bytes each (TPC-H's comments) make the per-string loop's set-up
 * and tail cost as much as the scan itself.
 *
 * <p>Thread safety: immutable.
 */
final class PercentLike implements StringPredicate {
  private final byte[] prefix;
  private final byte[] suffix;
  /** The non-empty pieces between the first and the last {@code %}, in order. */
  private final byte[][] middle;

  /** The predicate of {@code pattern}'s UTF-8 bytes, which hold no {@code _} and at least one {@code %}. */
  PercentLike(byte[] pattern) {
    List<byte[]> segments = new ArrayList<>();
    int from = 0;
    for (int i = 0; i <= pattern.length; i++) {
      if (i == pattern.length || pattern[i] == '%') {
        segments.add(Arrays.copyOfRange(pattern, from, i));
        from = i + 1;
      }
    }
    this.prefix = segments.getFirst();
    this.suffix = segments.getLast();
    this.middle = segments.subList(1, segments.size() - 1).stream().filter(piece -> piece.length > 0)
        .toArray(byte[][]::new);
  }

  @Override
  public boolean test(MemorySegment bytes, long offset, int length) {
    if (length < prefix.length + suffix.length
        || !ByteSearch.regionEquals(bytes, offset, prefix, 0, prefix.length)
        || !ByteSearch.regionEquals(bytes, offset + length - suffix.length, suffix, 0, suffix.length)) {
      return false;
    }
    long at = offset + prefix.length;
    long end = offset + length - suffix.length;
    for (byte[] piece : middle) {
      long found = ByteSearch.indexOf(bytes, at, end, piece);
      if (found < 0) {
        return false;
      }
      at = found + piece.length;
    }
    return true;
  }

  /** Whether the pattern only looks for pieces (no prefix, no suffix, at least one piece): {@link #test(StringWindow)} runs it. */
  boolean searchesWindows() {
    return prefix.length == 0 && suffix.length == 0 && middle.length > 0;
  }

  /**
   * Tests every string of {@code window}, setting {@code window.holds()[i]} for its string
   * {@code i}; only when {@link #searchesWindows()}.
   */
  void test(StringWindow window) {
    byte[] bytes = window.bytes();
    int[] begins = window.begins();
    int[] ends = window.ends();
    boolean[] holds = window.holds();
    int strings = window.strings();
    byte[] first = middle[0];
    int size = strings == 0 ? 0 : ends[strings - 1];
    int at = 0;
    int i = 0;
    while (i < strings) {
      int found = ByteSearch.indexOf(bytes, at, size, first);
      // The leftmost occurrence from `at` on: a string ending before it ends holds none (a later
      // one would end later still), whether the occurrence lies in a later string or straddles two.
      long reach = found < 0 ? Long.MAX_VALUE : (long) found + first.length;
      while (i < strings && ends[i] < reach) {
        holds[i++] = false;
      }
      if (i == strings) {
        return;
      }
      if (found < begins[i]) {
        at = begins[i]; // the occurrence starts before string i (in a gap, or in the string before)
        continue;
      }
      holds[i] = restFollows(bytes, found + first.length, ends[i]);
      at = ends[i];
      i++;
    }
  }

  /** Whether the pieces after the first occur in order in {@code bytes[from, to)}. */
  private boolean restFollows(byte[] bytes, int from, int to) {
    int at = from;
    for (int p = 1; p < middle.length; p++) {
      int found = ByteSearch.indexOf(bytes, at, to, middle[p]);
      if (found < 0) {
        return false;
      }
      at = found + middle[p].length;
    }
    return true;
  }
}
