package dev.memwall.index.page;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * How one B+-tree page lays out its sorted {@code (key, value)} entries: the in-page part of a
 * disk tree, so that the fpB+-tree and its baselines (slotted pages, micro-indexing) share one
 * page-level tree ({@code dev.memwall.index.disk.DiskBPlusTree}) and differ only here.
 *
 * <p>A page is addressed as {@code (segment, base)}: its bytes are {@code segment[base, base +
 * pageBytes)}. Every format keeps the common header line: bytes {@code [0,4)} the page file's
 * checksum, {@link #KIND} the page kind (written by the tree), {@link #COUNT} the entry count;
 * bytes {@code [16, 64)} are the format's own. Entries are addressed by opaque handles ({@code >=
 * 0}); {@link #END} means "past the last entry". Entries are in ascending key order, equal keys in
 * the order they were inserted; values are {@link #valueBytes()} wide (4: child page numbers, 8:
 * row ids).
 *
 * <p>Readers of a page may see bytes torn by a concurrent writer and validate afterwards
 * ({@link BufferPool}); so every method stays inside the page's bytes and terminates on any
 * contents, at worst returning nonsense or throwing {@link IndexOutOfBoundsException}.
 *
 * <p>Thread safety: formats are immutable; a page is changed by one thread at a time.
 */
public interface PageFormat {
  /** Handle meaning "no entry": past the last entry of the page. */
  long END = -1;
  /** Offset of the 2-byte page kind in every page. */
  long KIND = 4;
  /** Offset of the 4-byte entry count in every page. */
  long COUNT = 8;
  /** Bytes of the common header line. */
  int HEADER_BYTES = 64;

  ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;

  /** Bytes of one page. */
  int pageBytes();

  /** Bytes of one key: 4 or 8. */
  int keyBytes();

  /** Bytes of one value: 4 or 8. */
  int valueBytes();

  /** Most entries a page holds (after {@link #build}). */
  int capacity();

  /**
   * Most entries for which rebuilding a full page is worth it instead of splitting it: the engine
   * rebuilds when an {@link #insertAt} fails and the page would then hold at most this many.
   */
  int reorganizeLimit();

  /**
   * Writes {@code n <= capacity()} entries {@code keys[from..from+n)} / {@code values[..]} as the
   * page's whole contents (the checksum and {@link #KIND} bytes are left alone).
   */
  void build(MemorySegment s, long base, long[] keys, long[] values, int from, int n);

  default int count(MemorySegment s, long base) {
    return s.get(INT, base + COUNT);
  }

  /** The first entry with key {@code >= key}, or {@link #END}. */
  long lowerBound(MemorySegment s, long base, long key);

  /** The first entry with key {@code > key}, or {@link #END}. */
  long upperBound(MemorySegment s, long base, long key);

  /**
   * Where an entry with {@code key} goes so that it follows every entry {@code <= key}: a handle
   * that {@link #insertAt} accepts (it may name the end of an in-page node).
   */
  long insertionPoint(MemorySegment s, long base, long key);

  /** The first entry, or {@link #END} for an empty page. */
  long first(MemorySegment s, long base);

  /** The last entry, or {@link #END} for an empty page. */
  default long last(MemorySegment s, long base) {
    long last = END;
    for (long h = first(s, base); h != END; h = next(s, base, h)) {
      last = h;
    }
    return last;
  }

  /** The entry after {@code h}, or {@link #END}. */
  long next(MemorySegment s, long base, long h);

  long key(MemorySegment s, long base, long h);

  long value(MemorySegment s, long base, long h);

  void setValue(MemorySegment s, long base, long h, long value);

  /**
   * Inserts before the entry at {@code h} (or at the insertion point {@code h}); returns false and
   * changes nothing when the page has no room without being rebuilt.
   */
  boolean insertAt(MemorySegment s, long base, long h, long key, long value);

  /** Removes the entry at {@code h}. */
  void remove(MemorySegment s, long base, long h);

  /** How many entries come before {@code h} (an entry or insertion point). */
  int rank(MemorySegment s, long base, long h);

  /** Copies every entry, in order, into {@code keys}/{@code values}; returns the count. */
  default int flatten(MemorySegment s, long base, long[] keys, long[] values) {
    int n = 0;
    for (long h = first(s, base); h != END; h = next(s, base, h)) {
      keys[n] = key(s, base, h);
      values[n] = value(s, base, h);
      n++;
    }
    return n;
  }

  /**
   * Checks the page's own invariants (order, counts, in-page structure).
   *
   * @throws IllegalStateException describing the first violation
   */
  void check(MemorySegment s, long base);

  /** Reads a key of {@code keyBytes} at {@code at}. */
  static long getKey(MemorySegment s, long at, int keyBytes) {
    return keyBytes == 8 ? s.get(LONG, at) : s.get(INT, at);
  }

  /** Writes a key (or value) of {@code bytes} at {@code at}. */
  static void put(MemorySegment s, long at, int bytes, long value) {
    if (bytes == 8) {
      s.set(LONG, at, value);
    } else {
      s.set(INT, at, (int) value);
    }
  }
}
