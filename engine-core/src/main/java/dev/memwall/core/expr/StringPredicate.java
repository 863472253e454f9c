package dev.memwall.core.expr;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A test on one UTF-8 string held in off-heap memory, without decoding it.
 *
 * <p>Thread safety: implementations are immutable.
 */
@FunctionalInterface
public interface StringPredicate {

  /** Whether bytes {@code [offset, offset + length)} of {@code bytes} satisfy the predicate. */
  boolean test(MemorySegment bytes, long offset, int length);

  /** Equality with {@code value}. */
  static StringPredicate equalTo(String value) {
    byte[] expected = value.getBytes(StandardCharsets.UTF_8);
    return (bytes, offset, length) -> length == expected.length && ByteSearch.regionEquals(bytes, offset, expected, 0, length);
  }

  /** Membership in {@code values}. */
  static StringPredicate in(List<String> values) {
    StringPredicate[] each = values.stream().map(StringPredicate::equalTo).toArray(StringPredicate[]::new);
    return (bytes, offset, length) -> {
      for (StringPredicate candidate : each) {
        if (candidate.test(bytes, offset, length)) {
          return true;
        }
      }
      return false;
    };
  }

  /** {@code predicate} applied to {@code substring} of the string rather than the whole string. */
  static StringPredicate onSubstring(Expr.Substring substring, StringPredicate predicate) {
    return (bytes, offset, length) -> {
      long range = substring.byteRange(bytes, offset, length);
      return predicate.test(bytes, offset + (range >>> 32), (int) range);
    };
  }

  /**
   * Ordering against {@code value} by unsigned byte comparison, which for UTF-8 is code point
   * order: the predicate holds when {@code compare(string, value)} satisfies {@code accept}.
   */
  static StringPredicate compareTo(String value, java.util.function.IntPredicate accept) {
    byte[] other = value.getBytes(StandardCharsets.UTF_8);
    return (bytes, offset, length) -> {
      int common = Math.min(length, other.length);
      for (int i = 0; i < common; i++) {
        int cmp = Integer.compare(bytes.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFF, other[i] & 0xFF);
        if (cmp != 0) {
          return accept.test(cmp);
        }
      }
      return accept.test(Integer.compare(length, other.length));
    };
  }

  /**
   * SQL {@code LIKE}: {@code %} matches any sequence of characters (also none), {@code _} exactly
   * one character (one UTF-8 code point); every other character matches itself. There is no
   * escape character.
   */
  static StringPredicate like(String pattern) {
    byte[] p = pattern.getBytes(StandardCharsets.UTF_8);
    boolean plain = true;
    for (byte b : p) {
      plain &= b != '%' && b != '_';
    }
    if (plain) {
      return equalTo(pattern);
    }
    int firstWildcard = 0;
    while (p[firstWildcard] != '%' && p[firstWildcard] != '_') {
      firstWildcard++;
    }
    if (firstWildcard == p.length - 1 && p[firstWildcard] == '%') {
      byte[] prefix = Arrays.copyOf(p, firstWildcard);
      return (bytes, offset, length) -> length >= prefix.length && ByteSearch.regionEquals(bytes, offset, prefix, 0, prefix.length);
    }
    boolean percentOnly = true;
    for (byte b : p) {
      percentOnly &= b != '_';
    }
    if (percentOnly) {
      return new PercentLike(p);
    }
    return (bytes, offset, length) -> likeMatches(p, bytes, offset, length);
  }

  /** Greedy wildcard matching with backtracking to the last {@code %}: O(n * m) worst case. */
  private static boolean likeMatches(byte[] p, MemorySegment bytes, long offset, int length) {
    int pi = 0;
    int si = 0;
    int starP = -1;
    int starS = -1;
    while (si < length) {
      byte b = bytes.get(ValueLayout.JAVA_BYTE, offset + si);
      if (pi < p.length && p[pi] == '_') {
        pi++;
        si = nextCodePoint(bytes, offset, length, si);
      } else if (pi < p.length && p[pi] == '%') {
        starP = pi++;
        starS = si;
      } else if (pi < p.length && p[pi] == b) {
        pi++;
        si++;
      } else if (starP >= 0) {
        pi = starP + 1;
        starS = nextCodePoint(bytes, offset, length, starS);
        si = starS;
      } else {
        return false;
      }
    }
    while (pi < p.length && p[pi] == '%') {
      pi++;
    }
    return pi == p.length;
  }

  private static int nextCodePoint(MemorySegment bytes, long offset, int length, int at) {
    int next = at + 1;
    while (next < length && (bytes.get(ValueLayout.JAVA_BYTE, offset + next) & 0xC0) == 0x80) {
      next++;
    }
    return next;
  }
}
