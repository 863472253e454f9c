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
 * <p>Ownership: one off-heap buffer of {@code 8 m} bytes charged to the {@link EngineMemory} given;
 * {@link #close} frees it. Thread safety: immutable once built; test from any number of threads.
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

  private VerticalBloomFilters(OffHeapBuffer buffer, long bits, int hashes, int filters) {
    this.buffer = buffer;
    this.slices = buffer.segment();
    this.bits = bits;
    this.hashes = hashes;
    this.filters = filters;
  }

  /** The vertical layout of {@code filters}, which stay the caller's (they may be closed afterwards). */
  public static VerticalBloomFilters transpose(EngineMemory memory, List<BloomFilter> filters) {
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
    OffHeapBuffer buffer = memory.allocate(bits * Long.BYTES);
    MemorySegment slices = buffer.segment();
    for (int s = 0; s < filters.size(); s++) {
      BloomFilter filter = filters.get(s);
      for (long index = 0; index < bits / Long.SIZE; index++) {
        for (long word = filter.word(index); word != 0; word &= word - 1) {
          long bit = index * Long.SIZE + Long.numberOfTrailingZeros(word);
          slices.setAtIndex(WORD, bit, slices.getAtIndex(WORD, bit) | (1L << s));
        }
      }
    }
    return new VerticalBloomFilters(buffer, bits, hashes, filters.size());
  }

  /** The filters that may contain the key with {@code hash}: bit {@code s} set for filter {@code s}. */
  public long candidates(long hash) {
    int h1 = (int) hash;
    int h2 = (int) (hash >>> 32) | 1;
    long mask = -1L >>> (MAX_FILTERS - filters);
    for (int i = 0; i < hashes && mask != 0; i++) {
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
    buffer.close();
  }
}
