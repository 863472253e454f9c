package dev.memwall.join.pipeline;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The exact set of a join's build keys when they are one integral column over a range
 * {@code [min, max]}: one bit per value of the range. Where it fits the cache, it replaces the Bloom
 * filter in front of the hash table ({@link KeyFilter}): a test is one load and a shift on the key
 * itself, so probe rows it rejects are never hashed, and it has no false positives. Keys over
 * ranges of a few million values are common (TPC-H's order, customer, part and supplier keys).
 *
 * <p>Ownership: the bits live in one off-heap buffer charged to the {@link EngineMemory} it was
 * created from; {@link #close} frees it. Thread safety: {@link #add} is for one thread at a time;
 * once built, {@link #select} may run on any number of threads.
 */
final class KeyBitmap implements AutoCloseable {
  private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;

  private final OffHeapBuffer buffer;
  private final MemorySegment words;
  private final long min;
  /** {@code max - min}: the largest offset in the set's range. */
  private final long lastOffset;
  private final long lastWord;

  private KeyBitmap(OffHeapBuffer buffer, long min, long lastOffset) {
    this.buffer = buffer;
    this.words = buffer.segment();
    this.min = min;
    this.lastOffset = lastOffset;
    this.lastWord = lastOffset >>> 6;
  }

  /**
   * The bytes of a bitmap for keys in {@code [min, max]} (whole words), or -1 when the range has
   * more than {@code Long.MAX_VALUE} values.
   */
  static long bytesFor(long min, long max) {
    long lastOffset = max - min;
    if (max < min || lastOffset < 0) {
      return -1;
    }
    return ((lastOffset >>> 6) + 1) * Long.BYTES;
  }

  /** An empty set for keys in {@code [min, max]}, whose {@link #bytesFor} must not be -1. */
  static KeyBitmap create(EngineMemory memory, long min, long max) {
    long bytes = bytesFor(min, max);
    if (bytes < 0) {
      throw new IllegalArgumentException("no bitmap for keys in [" + min + ", " + max + "]");
    }
    return new KeyBitmap(memory.allocate(bytes), min, max - min);
  }

  /** Adds {@code key}, which must lie in the range the set was created for. */
  void add(long key) {
    long offset = key - min;
    if (Long.compareUnsigned(offset, lastOffset) > 0) {
      throw new IllegalArgumentException("key " + key + " outside [" + min + ", " + (min + lastOffset) + "]");
    }
    long at = offset >>> 6;
    words.setAtIndex(WORD, at, words.getAtIndex(WORD, at) | 1L << offset);
  }

  /**
   * Keeps the positions {@code k = positions[i]}, {@code i < n}, whose {@code keys[k]} is in the
   * set, in order, at the front of {@code positions}; returns how many. Branch-free: a key outside
   * the range reads the last word and is then masked out.
   */
  int select(long[] keys, int[] positions, int n) {
    int kept = 0;
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      positions[kept] = k;
      kept += bit(keys[k]);
    }
    return kept;
  }

  /**
   * {@link #select} over every position {@code k < count} (a chunk whose rows are all selected): writes
   * the positions whose {@code keys[k]} is in the set, in order, to the front of {@code positions};
   * returns how many. Reads no selection, so the loop is a load of the key and of its word per row.
   */
  int selectAll(long[] keys, int count, int[] positions) {
    int kept = 0;
    for (int k = 0; k < count; k++) {
      positions[kept] = k;
      kept += bit(keys[k]);
    }
    return kept;
  }

  /** 1 when {@code key} is in the set, else 0, without a branch. */
  private int bit(long key) {
    long offset = key - min;
    long word = words.getAtIndex(WORD, Math.min(offset >>> 6, lastWord));
    int inRange = Long.compareUnsigned(offset, lastOffset) <= 0 ? 1 : 0;
    return (int) (word >>> offset) & inRange;
  }

  @Override
  public void close() {
    buffer.close();
  }
}
