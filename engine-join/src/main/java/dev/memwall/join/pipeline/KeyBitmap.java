package dev.memwall.join.pipeline;

import dev.memwall.core.memory.EngineMemory;

/**
 * The exact set of a join's build keys when they are one integral column over a range
 * {@code [min, max]}: one bit per value of the range. Where it fits the cache, it replaces the Bloom
 * filter in front of the hash table ({@link KeyFilter}): a test is one load and a shift on the key
 * itself, so probe rows it rejects are never hashed, and it has no false positives. Keys over
 * ranges of a few million values are common (TPC-H's order, customer, part and supplier keys).
 *
 * <p>The bits are a heap array rather than off-heap memory: every probe row loads one word at a
 * place its key decides, and an array element is cheaper to load than a memory segment's checked
 * access. The set is as large as the cache at most, or, for probe keys that come in order, as the
 * hash table and a sixteenth of the JVM's heap limit ({@link KeyFilter}).
 *
 * <p>Ownership: the array is charged to the {@link EngineMemory} it was created from as heap
 * ({@link EngineMemory#reserveHeap}); {@link #close} returns the charge. Thread safety: {@link #add}
 * and {@link #close} are for one thread at a time; once built, {@link #select} may run on any number
 * of threads.
 */
final class KeyBitmap implements AutoCloseable {
  /** The most words an array holds (the JDK's arrays stop a little below {@code Integer.MAX_VALUE}). */
  private static final long MAX_WORDS = Integer.MAX_VALUE - 8;

  private final EngineMemory memory;
  private final long[] words;
  private final long min;
  /** {@code max - min}: the largest offset in the set's range. */
  private final long lastOffset;
  private final long lastWord;
  private boolean closed;

  private KeyBitmap(EngineMemory memory, long min, long lastOffset) {
    this.memory = memory;
    this.words = new long[(int) ((lastOffset >>> 6) + 1)];
    this.min = min;
    this.lastOffset = lastOffset;
    this.lastWord = lastOffset >>> 6;
  }

  /**
   * The bytes of a bitmap for keys in {@code [min, max]} (whole words), or -1 when the range has
   * more values than an array holds bits.
   */
  static long bytesFor(long min, long max) {
    long lastOffset = max - min;
    if (max < min || lastOffset < 0 || (lastOffset >>> 6) >= MAX_WORDS) {
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
    memory.reserveHeap(bytes);
    try {
      return new KeyBitmap(memory, min, max - min);
    } catch (OutOfMemoryError e) {
      memory.releaseHeap(bytes);
      throw e;
    }
  }

  /** Adds {@code key}, which must lie in the range the set was created for. */
  void add(long key) {
    long offset = key - min;
    if (Long.compareUnsigned(offset, lastOffset) > 0) {
      throw new IllegalArgumentException("key " + key + " outside [" + min + ", " + (min + lastOffset) + "]");
    }
    long at = offset >>> 6;
    words[(int) at] |= 1L << offset;
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
    long word = words[(int) Math.min(offset >>> 6, lastWord)];
    int inRange = Long.compareUnsigned(offset, lastOffset) <= 0 ? 1 : 0;
    return (int) (word >>> offset) & inRange;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      memory.releaseHeap((long) words.length * Long.BYTES);
    }
  }
}
