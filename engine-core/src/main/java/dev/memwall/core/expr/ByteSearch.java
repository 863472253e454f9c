package dev.memwall.core.expr;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Substring search in off-heap bytes, for {@link StringPredicate}'s LIKE. Stateless. */
final class ByteSearch {
  /** Eight string bytes at once, the first in the lowest byte. */
  private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private ByteSearch() {}

  /**
   * The first position in {@code [from, to)} where {@code piece} starts and ends before {@code to},
   * or -1. Candidates for the first byte are found eight bytes at a time (SWAR: a zero-byte test on
   * the word XOR the byte repeated, which flags every occurrence and possibly a few bytes more) and
   * each candidate is then compared in full.
   */
  static long indexOf(MemorySegment bytes, long from, long to, byte[] piece) {
    byte first = piece[0];
    long last = to - piece.length;
    long repeated = (first & 0xFFL) * 0x0101010101010101L;
    long at = from;
    for (; at + Long.BYTES <= to; at += Long.BYTES) {
      long x = bytes.get(WORD, at) ^ repeated;
      long candidates = (x - 0x0101010101010101L) & ~x & 0x8080808080808080L;
      while (candidates != 0) {
        long candidate = at + (Long.numberOfTrailingZeros(candidates) >>> 3);
        if (candidate > last) {
          return -1;
        }
        if (bytes.get(ValueLayout.JAVA_BYTE, candidate) == first
            && regionEquals(bytes, candidate + 1, piece, 1, piece.length - 1)) {
          return candidate;
        }
        candidates &= candidates - 1;
      }
    }
    for (; at <= last; at++) {
      if (bytes.get(ValueLayout.JAVA_BYTE, at) == first && regionEquals(bytes, at + 1, piece, 1, piece.length - 1)) {
        return at;
      }
    }
    return -1;
  }

  /** Whether bytes {@code [offset, offset + length)} equal {@code expected[from, from + length)}. */
  static boolean regionEquals(MemorySegment bytes, long offset, byte[] expected, int from, int length) {
    for (int i = 0; i < length; i++) {
      if (bytes.get(ValueLayout.JAVA_BYTE, offset + i) != expected[from + i]) {
        return false;
      }
    }
    return true;
  }
}
