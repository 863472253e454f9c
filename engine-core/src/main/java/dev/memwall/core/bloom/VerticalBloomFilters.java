package dev.memwall.core.bloom;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Up to 64 Bloom filters of equal size and hash count, stored bit-sliced: word {@code j} holds bit
 * {@code j} of every filter (filter {@code s} in bit {@code s}). Testing a key against all of them
 * loads {@code k} words and ANDs them, so it costs {@code k} cache misses however many filters
 * there are: the inspector join's layout for finding a probe tuple's candidate sub-partitions (seed
 * 002, section 5.3).
 *
 * <p>Ownership: one off-heap buffer of {@code 8 m} bytes charged to the {@link EngineMemory} given,
 * which {@link #close} frees; or the caller's memory ({@link #transpose(List, MemorySegment)}). Thread safety: immutable once built; test from any number of threads.
 * Bad input: an empty list, more than 64 filters, or filters of different sizes or hash counts throw
 * {@link IllegalArgumentException}.
 */
public final class VerticalBloomFilters implements AutoCloseable {
  /** The most filters one vertical set holds: one bit each in a 64-bit word. */
  public static final int MAX_FILTERS = 64;
  private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;

  private final OffHeapBuffer buffer;
  private final MemorySegment slices;
  private final long bits;
  private final int hashes;
  private final int filters;

  private VerticalBloomFilters(OffHeapBuffer buffer, MemorySegment slices, long bits, int hashes, int filters) {
    this.buffer = buffer;
    this.slices = slices;
    this.bits = bits;
    this.hashes = hashes;
    this.filters = filters;
  }

  /** The vertical layout of {@code filters}, which stay the caller's (they may be closed afterwards). */
  public static VerticalBloomFilters transpose(EngineMemory memory, List<BloomFilter> filters) {
    long bits = check(filters);
    OffHeapBuffer buffer = memory.allocate(bits * Long.BYTES);
    fill(buffer.segment(), filters, bits);
    return new VerticalBloomFilters(buffer, buffer.segment(), bits, filters.getFirst().hashes(), filters.size());
  }

  /**
   * The vertical layout of {@code filters} written into the caller's {@code destination} (at least
   * {@link #bytesFor} their bits, zeroed), which stays the caller's: {@link #close} does not free it.
   * Lets many sets share one buffer.
   */
  public static VerticalBloomFilters transpose(List<BloomFilter> filters, MemorySegment destination) {
    long bits = check(filters);
    if (destination.byteSize() < bytesFor(bits)) {
      throw new IllegalArgumentException("a vertical set of " + bits + " bits needs " + bytesFor(bits)
          + " bytes, got " + destination.byteSize());
    }
    fill(destination, filters, bits);
    return new VerticalBloomFilters(null, destination, bits, filters.getFirst().hashes(), filters.size());
  }

  /** The bytes of a vertical set of filters of {@code bits} bits each: one 64-bit word per bit position. */
  public static long bytesFor(long bits) {
    return bits * Long.BYTES;
  }

  private static long check(List<BloomFilter> filters) {
    if (filters.isEmpty() || filters.size() > MAX_FILTERS) {
      throw new IllegalArgumentException("a vertical set holds 1 to " + MAX_FILTERS + " filters, not " + filters.size());
    }
    long bits = filters.getFirst().bits();
    int hashes = filters.getFirst().hashes();
    for (BloomFilter filter : filters) {
      if (filter.bits() != bits || filter.hashes() != hashes) {
        throw new IllegalArgumentException("filters of a vertical set share their size and hash count: " + bits
            + " bits x " + hashes + " hashes vs " + filter.bits() + " x " + filter.hashes());
      }
    }
    return bits;
  }

  /**
   * Sets bit s of word j for every set bit j of filter s, one block at a time as the thesis does
   * (Figure 5.6): the 64 bits {@code [64 i, 64 i + 64)} of every filter (one long of each, read
   * sequentially per filter) fill one 512-byte block of destination words, which stays in L1 while
   * it is written; set bits are found by trailing-zero counts.
   */
  private static void fill(MemorySegment slices, List<BloomFilter> filters, long bits) {
    int count = filters.size();
    for (long index = 0; index < bits / Long.SIZE; index++) {
      long base = index * Long.SIZE;
      for (int s = 0; s < count; s++) {
        long flag = 1L << s;
        for (long word = filters.get(s).word(index); word != 0; word &= word - 1) {
          long bit = base + Long.numberOfTrailingZeros(word);
          slices.setAtIndex(WORD, bit, slices.getAtIndex(WORD, bit) | flag);
        }
      }
    }
  }

  /**
   * The filters that may contain the key with {@code hash}: bit {@code s} set for filter {@code s}.
   * The {@code k} loads are independent and combined without branches, so a caller testing several
   * keys in a row has all their misses in flight at once.
   */
  public long candidates(long hash) {
    int h1 = (int) hash;
    int h2 = (int) (hash >>> 32) | 1;
    long mask = -1L >>> (MAX_FILTERS - filters);
    for (int i = 0; i < hashes; i++) {
      mask &= slices.get(WORD, BloomFilter.position(h1 + i * h2, bits) * Long.BYTES);
    }
    return mask;
  }

  /** How many filters the set holds. */
  public int filters() {
    return filters;
  }

  @Override
  public void close() {
    if (buffer != null) {
      buffer.close();
    }
  }
}
