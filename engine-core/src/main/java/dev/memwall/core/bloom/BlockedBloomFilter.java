package dev.memwall.core.bloom;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A split-block Bloom filter (the layout Parquet specifies, in native byte order): blocks of 256 bits,
 * eight 32-bit words;
 * a key's upper 32 hash bits choose its block, and its lower 32 bits, multiplied by eight odd salts,
 * set one bit in each word. Every test touches one 32-byte block, so it costs at most one cache miss,
 * which is what a semi-join reducer in front of a large join needs.
 *
 * <p>Ownership: the bits live in one off-heap buffer charged to the {@link EngineMemory} it was
 * created from; {@link #close} frees it. Thread safety: {@link #add} is for one thread at a time;
 * once built, {@link #mightContain} and {@link #select} may run on any number of threads. Bad input:
 * a key count below 1 or a false-positive rate outside (0, 1) throws {@link IllegalArgumentException}.
 */
public final class BlockedBloomFilter implements AutoCloseable {
  private static final int[] SALTS = {0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b,
      0x9efc4947, 0x5c6bfb31};
  private static final int BLOCK_BYTES = 32;
  /** Blocks are chosen by 32 hash bits. */
  private static final long MAX_BLOCKS = 1L << 32;
  /** Two of a block's 32-bit words, little-endian: word {@code 2i} in the low half of long {@code i}. */
  private static final ValueLayout.OfLong PAIR = ValueLayout.JAVA_LONG;

  private final OffHeapBuffer buffer;
  private final MemorySegment bits;
  private final long blocks;

  private BlockedBloomFilter(OffHeapBuffer buffer, long blocks) {
    this.buffer = buffer;
    this.bits = buffer.segment();
    this.blocks = blocks;
  }

  /** An empty filter sized for {@code expectedKeys} at about {@code falsePositiveRate}. */
  public static BlockedBloomFilter create(EngineMemory memory, long expectedKeys, double falsePositiveRate) {
    long bytes = bytesFor(expectedKeys, falsePositiveRate);
    return new BlockedBloomFilter(memory.allocate(bytes), bytes / BLOCK_BYTES);
  }

  /**
   * The bytes for {@code keys} keys at {@code falsePositiveRate}: {@code -8 n / ln(1 - p^(1/8))}
   * bits, rounded up to whole blocks (the split-block filter's sizing).
   */
  public static long bytesFor(long keys, double falsePositiveRate) {
    if (keys < 1) {
      throw new IllegalArgumentException("a Bloom filter needs at least one expected key, got " + keys);
    }
    if (!(falsePositiveRate > 0 && falsePositiveRate < 1)) {
      throw new IllegalArgumentException("the false-positive rate must lie strictly between 0 and 1, got "
          + falsePositiveRate);
    }
    double bits = -8.0 * keys / Math.log(1 - Math.pow(falsePositiveRate, 1.0 / 8));
    long blocks = Math.max(1, (long) Math.ceil(bits / (BLOCK_BYTES * 8)));
    if (blocks > MAX_BLOCKS) {
      throw new IllegalArgumentException("a Bloom filter for " + keys + " keys at rate " + falsePositiveRate
          + " would exceed " + (MAX_BLOCKS * BLOCK_BYTES >> 30) + " GiB");
    }
    return blocks * BLOCK_BYTES;
  }

  /** Adds the key whose 64-bit hash is {@code hash}. */
  public void add(long hash) {
    long block = block(hash);
    int low = (int) hash;
    for (int pair = 0; pair < 4; pair++) {
      long offset = block + pair * 8L;
      bits.set(PAIR, offset, bits.get(PAIR, offset) | pairMask(low, pair));
    }
  }

  /**
   * Whether the key with {@code hash} may have been added: false means certainly not. The block's
   * four longs are tested without a branch between them, so a test costs one cache line and no
   * branch mispredictions.
   */
  public boolean mightContain(long hash) {
    long block = block(hash);
    int low = (int) hash;
    long missing = 0;
    for (int pair = 0; pair < 4; pair++) {
      long mask = pairMask(low, pair);
      missing |= mask & ~bits.get(PAIR, block + pair * 8L);
    }
    return missing == 0;
  }

  /** The bits of words {@code 2 pair} (low half) and {@code 2 pair + 1} (high half) that the key sets. */
  private static long pairMask(int low, int pair) {
    long even = 1L << ((low * SALTS[2 * pair]) >>> 27);
    long odd = 1L << ((low * SALTS[2 * pair + 1]) >>> 27);
    return even | (odd << 32);
  }

  /**
   * Writes to {@code selection} the positions {@code i < count} whose {@code hashes[i]} may have
   * been added, ascending, and returns how many there are.
   */
  public int select(long[] hashes, int count, int[] selection) {
    int selected = 0;
    for (int i = 0; i < count; i++) {
      selection[selected] = i;
      selected += mightContain(hashes[i]) ? 1 : 0;
    }
    return selected;
  }

  /** The filter's size in bytes. */
  public long byteSize() {
    return blocks * BLOCK_BYTES;
  }

  /** The byte offset of the key's block: its upper 32 hash bits scaled to the block count (multiply-shift). */
  private long block(long hash) {
    return ((hash >>> 32) * blocks >>> 32) * BLOCK_BYTES;
  }

  @Override
  public void close() {
    buffer.close();
  }
}
