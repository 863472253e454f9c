package dev.memwall.core.expr;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Substring search, for {@link StringPredicate}'s LIKE: in off-heap bytes (one string where it
 * lies) and in a heap array (a window of a column's strings copied at once, {@link StringWindow}).
 * Stateless.
 */
final class ByteSearch {
  /** Eight string bytes at once, the first in the lowest byte. */
  private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  /** {@link #WORD} in a heap array. */
  private static final VarHandle ARRAY_WORD = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private ByteSearch() {}

  /**
   * The first position in {@code [from, to)} where {@code piece} starts and ends before {@code to},
   * or -1. Candidates are found eight positions at a time (SWAR: a zero-byte test on a word XOR a
   * byte repeated flags every occurrence of that byte and possibly a few bytes more): for a piece of
   * two or more bytes, positions where both its first and its second byte match (two overlapping
   * words), which in text is far rarer than the first byte alone; each candidate is then compared in
   * full.
   */
  static long indexOf(MemorySegment bytes, long from, long to, byte[] piece) {
    if (piece.length >= 2) {
      return indexOfPair(bytes, from, to, piece);
    }
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

  private static long indexOfPair(MemorySegment bytes, long from, long to, byte[] piece) {
    long last = to - piece.length;
    long first = (piece[0] & 0xFFL) * 0x0101010101010101L;
    long second = (piece[1] & 0xFFL) * 0x0101010101010101L;
    long at = from;
    for (; at + Long.BYTES + 1 <= to; at += Long.BYTES) {
      long candidates = zeroBytes(bytes.get(WORD, at) ^ first) & zeroBytes(bytes.get(WORD, at + 1) ^ second);
      while (candidates != 0) {
        long candidate = at + (Long.numberOfTrailingZeros(candidates) >>> 3);
        if (candidate > last) {
          return -1;
        }
        if (regionEquals(bytes, candidate, piece, 0, piece.length)) {
          return candidate;
        }
        candidates &= candidates - 1;
      }
    }
    for (; at <= last; at++) {
      if (regionEquals(bytes, at, piece, 0, piece.length)) {
        return at;
      }
    }
    return -1;
  }

  /**
   * As {@link #indexOf(MemorySegment, long, long, byte[])} in a heap array: the first position in
   * {@code [from, to)} where {@code piece} (not empty) starts and ends before {@code to}, or -1.
   * Without a segment's bounds and liveness checks on every word, the scan runs at about twice the
   * speed of the off-heap one. A piece of one byte is looked for byte by byte.
   */
  static int indexOf(byte[] bytes, int from, int to, byte[] piece) {
    int last = to - piece.length;
    if (piece.length == 1) {
      for (int at = from; at <= last; at++) {
        if (bytes[at] == piece[0]) {
          return at;
        }
      }
      return -1;
    }
    long first = (piece[0] & 0xFFL) * 0x0101010101010101L;
    long second = (piece[1] & 0xFFL) * 0x0101010101010101L;
    int at = from;
    for (; at + Long.BYTES + 1 <= to; at += Long.BYTES) {
      long candidates = zeroBytes((long) ARRAY_WORD.get(bytes, at) ^ first)
          & zeroBytes((long) ARRAY_WORD.get(bytes, at + 1) ^ second);
      while (candidates != 0) {
        int candidate = at + (Long.numberOfTrailingZeros(candidates) >>> 3);
        if (candidate > last) {
          return -1;
        }
        if (regionEquals(bytes, candidate, piece)) {
          return candidate;
        }
        candidates &= candidates - 1;
      }
    }
    for (; at <= last; at++) {
      if (regionEquals(bytes, at, piece)) {
        return at;
      }
    }
    return -1;
  }

  /** Whether {@code bytes[offset, offset + piece.length)} equals {@code piece}. */
  private static boolean regionEquals(byte[] bytes, int offset, byte[] piece) {
    for (int i = 0; i < piece.length; i++) {
      if (bytes[offset + i] != piece[i]) {
        return false;
      }
    }
    return true;
  }

  /** The high bit of every zero byte of {@code x} (and possibly of bytes above a zero byte). */
  private static long zeroBytes(long x) {
    return (x - 0x0101010101010101L) & ~x & 0x8080808080808080L;
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
