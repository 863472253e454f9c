package dev.memwall.core.bloom;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A register-blocked Bloom filter (Lang et al., "Performance-Optimal Filtering: Bloom Overtakes
 * Cuckoo at High Throughput", VLDB 2019): every key lives in one 64-bit word, chosen by the top bits
 * of its hash, in which it sets {@value #BITS_PER_KEY_IN_WORD} bits chosen by low hash bits. A test
 * is one load, a few shifts and one compare, with no branch: the cheapest filter for the hot probe
 * loop of a selective join, at some cost in bits per key against the split-block layout
 * ({@link BlockedBloomFilter}) for the same false-positive rate.
 *
 * <p>Sizing: a power of two of words, at least {@code bitsPerKey} bits per expected key; at 16 bits
 * per key the false-positive rate is about 1.5%, at 8 about 5%.
 *
 * <p>Ownership: the words live in one off-heap buffer charged to the {@link EngineMemory} it was
 * created from; {@link #close} frees it. Thread safety: {@link #add} is for one thread at a time;
 * once built, {@link #mightContain} and {@link #select} may run on any number of threads. Bad input:
 * a key count below 1 or fewer than 1 bit per key throws {@link IllegalArgumentException}.
 */
public final class RegisterBlockedBloomFilter implements AutoCloseable {
  /** Bits a key sets in its word. */
  static final int BITS_PER_KEY_IN_WORD = 3;
  private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;
  /** Words are chosen by at most 40 hash bits (8 TiB of filter), leaving the low 24 for the bits in the word. */
  private static final int MAX_WORD_BITS = 40;

  private final OffHeapBuffer buffer;
  private final MemorySegment words;
  private final int shift;

  private RegisterBlockedBloomFilter(OffHeapBuffer buffer, int wordBits) {
    this.buffer = buffer;
    this.words = buffer.segment();
    this.shift = 64 - wordBits;
  }

  /** An empty filter with at least {@code bitsPerKey} bits for each of {@code expectedKeys} keys. */
  public static RegisterBlockedBloomFilter create(EngineMemory memory, long expectedKeys, int bitsPerKey) {
    long bytes = bytesFor(expectedKeys, bitsPerKey);
    int wordBits = Long.numberOfTrailingZeros(bytes / Long.BYTES);
    return new RegisterBlockedBloomFilter(memory.allocate(bytes), wordBits);
  }

  /** The bytes for {@code keys} keys at {@code bitsPerKey} bits each, in a power of two of words (at least two). */
  public static long bytesFor(long keys, int bitsPerKey) {
    if (keys < 1) {
      throw new IllegalArgumentException("a Bloom filter needs at least one expected key, got " + keys);
    }
    if (bitsPerKey < 1) {
      throw new IllegalArgumentException("a Bloom filter needs at least one bit per key, got " + bitsPerKey);
    }
    long bits = Math.multiplyHigh(keys, bitsPerKey) != 0 ? Long.MAX_VALUE : keys * bitsPerKey;
    long needed = Math.ceilDiv(bits, 64);
    if (needed > 1L << MAX_WORD_BITS) {
      throw new IllegalArgumentException("a Bloom filter for " + keys + " keys at " + bitsPerKey
          + " bits each would exceed " + (8L << MAX_WORD_BITS >> 40) + " TiB");
    }
    long words = Math.max(2, Long.highestOneBit(needed * 2 - 1));
    return words * Long.BYTES;
  }

  /** Adds the key whose 64-bit hash is {@code hash}. */
  public void add(long hash) {
    long at = hash >>> shift;
    words.setAtIndex(WORD, at, words.getAtIndex(WORD, at) | mask(hash));
  }

  /** Whether the key with {@code hash} may have been added: false means certainly not. */
  public boolean mightContain(long hash) {
    long mask = mask(hash);
    return (words.getAtIndex(WORD, hash >>> shift) & mask) == mask;
  }

  /**
   * Writes to {@code selection} the positions {@code i < count} whose {@code hashes[i]} may have
   * been added, ascending, and returns how many there are.
   */
  public int select(long[] hashes, int count, int[] selection) {
    int selected = 0;
    for (int i = 0; i < count; i++) {
      long hash = hashes[i];
      long mask = mask(hash);
      selection[selected] = i;
      selected += (words.getAtIndex(WORD, hash >>> shift) & mask) == mask ? 1 : 0;
    }
    return selected;
  }

  /** The key's bits in its word: three positions from the hash's low 18 bits. */
  private static long mask(long hash) {
    return (1L << hash) | (1L << (hash >>> 6)) | (1L << (hash >>> 12));
  }

  /** The filter's size in bytes. */
  public long byteSize() {
    return words.byteSize();
  }

  @Override
  public void close() {
    buffer.close();
  }
}
