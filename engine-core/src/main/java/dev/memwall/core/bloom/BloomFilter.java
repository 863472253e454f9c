package dev.memwall.core.bloom;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A classic Bloom filter of {@code m} bits tested with {@code k} positions per key, derived by
 * double hashing from the key's 64-bit hash ({@code h1 + i h2} for {@code i < k}, each scaled to
 * {@code m}). This is the per-sub-partition filter of the inspector join (seed 002, chapter 5: three
 * hash functions), built while partitioning and then {@linkplain VerticalBloomFilters#transpose
 * transposed} so that one probe tests many filters at once.
 *
 * <p>Ownership: the bits live in one off-heap buffer charged to the {@link EngineMemory} it was
 * created from, which {@link #close} frees; or, for {@link #wrap}, in the caller's memory. Thread safety: {@link #add} is for one thread at a time; a
 * built filter may be tested from any number of threads. Bad input: sizes or rates out of range
 * throw {@link IllegalArgumentException}.
 */
public final class BloomFilter implements AutoCloseable {
  private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;
  /** Positions are scaled from 32 hash bits. */
  static final long MAX_BITS = 1L << 32;

  private final OffHeapBuffer buffer;
  private final MemorySegment words;
  private final long bits;
  private final int hashes;

  private BloomFilter(OffHeapBuffer buffer, MemorySegment words, long bits, int hashes) {
    this.buffer = buffer;
    this.words = words;
    this.bits = bits;
    this.hashes = hashes;
  }

  /**
   * A filter over caller-owned, zeroed memory: its bits are all of {@code words} (whose size must be a
   * positive multiple of 8 bytes, at most 2^29). Used where many equal filters share one buffer (the
   * inspector join's sub-partition filters), so that they cost one allocation and one release.
   * {@link #close} leaves the memory to its owner.
   */
  public static BloomFilter wrap(MemorySegment words, int hashes) {
    checkHashes(hashes);
    long bits = words.byteSize() * 8;
    if (words.byteSize() % Long.BYTES != 0 || bits < 64 || bits > MAX_BITS) {
      throw new IllegalArgumentException("a wrapped Bloom filter needs 8 to 2^29 bytes in whole longs, not "
          + words.byteSize());
    }
    return new BloomFilter(null, words, bits, hashes);
  }

  /** The bytes of a filter of {@code bits} bits, rounded up to whole longs as {@link #create} does. */
  public static long bytesFor(long bits) {
    return checkBits(bits) / 8;
  }

  /** An empty filter of {@code bits} bits (rounded up to 64) tested with {@code hashes} positions per key. */
  public static BloomFilter create(EngineMemory memory, long bits, int hashes) {
    long rounded = checkBits(bits);
    checkHashes(hashes);
    OffHeapBuffer buffer = memory.allocate(rounded / 8);
    return new BloomFilter(buffer, buffer.segment(), rounded, hashes);
  }

  /**
   * The bits per key that give {@code falsePositiveRate} with {@code hashes} positions per key when
   * the filter holds its expected keys: {@code -k / ln(1 - p^(1/k))}. For k = 3 and p = 0.05 / 50
   * (the inspector join's fpr/S at S = 50) this is about 28.5, the thesis's figure.
   */
  public static double bitsPerKey(double falsePositiveRate, int hashes) {
    checkHashes(hashes);
    if (!(falsePositiveRate > 0 && falsePositiveRate < 1)) {
      throw new IllegalArgumentException("the false-positive rate must lie strictly between 0 and 1, got "
          + falsePositiveRate);
    }
    return -hashes / Math.log(1 - Math.pow(falsePositiveRate, 1.0 / hashes));
  }

  /** Adds the key whose 64-bit hash is {@code hash}. */
  public void add(long hash) {
    int h1 = (int) hash;
    int h2 = (int) (hash >>> 32) | 1;
    for (int i = 0; i < hashes; i++) {
      long bit = position(h1 + i * h2, bits);
      long offset = (bit >>> 6) * Long.BYTES;
      words.set(WORD, offset, words.get(WORD, offset) | (1L << bit));
    }
  }

  /**
   * Whether the key with {@code hash} may have been added: false means certainly not. The {@code k}
   * loads are independent and tested without branches, so their misses overlap.
   */
  public boolean mightContain(long hash) {
    int h1 = (int) hash;
    int h2 = (int) (hash >>> 32) | 1;
    long present = 1;
    for (int i = 0; i < hashes; i++) {
      long bit = position(h1 + i * h2, bits);
      present &= words.get(WORD, (bit >>> 6) * Long.BYTES) >>> bit;
    }
    return present != 0;
  }

  /** The number of bits, a multiple of 64. */
  public long bits() {
    return bits;
  }

  /** Positions tested per key. */
  public int hashes() {
    return hashes;
  }

  /** Bits {@code 64 index} to {@code 64 index + 63}. */
  long word(long index) {
    return words.getAtIndex(WORD, index);
  }

  /** The position of hash value {@code g} among {@code bits} bits: its 32 bits scaled (multiply-shift). */
  static long position(int g, long bits) {
    return (Integer.toUnsignedLong(g) * bits) >>> 32;
  }

  static long checkBits(long bits) {
    if (bits < 1 || bits > MAX_BITS) {
      throw new IllegalArgumentException("a Bloom filter has 1 to 2^32 bits, not " + bits);
    }
    return (bits + 63) & -64L;
  }

  static void checkHashes(int hashes) {
    if (hashes < 1 || hashes > 16) {
      throw new IllegalArgumentException("a Bloom filter tests 1 to 16 positions per key, not " + hashes);
    }
  }

  @Override
  public void close() {
    if (buffer != null) {
      buffer.close();
    }
  }
}
