package dev.memwall.join.inspector;

import dev.memwall.core.bloom.BloomFilter;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;

/**
 * One {@value InspectorSizing#HASHES}-hash Bloom filter per build sub-partition
 * ({@link SubPartitions}), of {@link InspectorSizing#filterBits()} bits each (a per-filter
 * false-positive rate of fpr/S), filled while the build side is partitioned ({@link BuildSide}). It
 * exists because a filter is cheapest to fill one key at a time in this horizontal layout, and
 * cheapest to test in the vertical one: {@link PartitionFilters} transposes them, after which these
 * are freed.
 *
 * <p>Ownership: one zeroed off-heap buffer charged to the run's {@link EngineMemory}, holding every
 * filter, freed by {@link #close} (or by the constructor when it fails); the filters are views of it
 * and invalid after. Thread safety: each
 * filter is written by the one thread that partitions its region (a sub-partition lies in one
 * region); read by others only after that. A filter size {@link BloomFilter#wrap} refuses throws
 * its {@link IllegalArgumentException}.
 */
final class HorizontalFilters implements AutoCloseable {
  private final OffHeapBuffer buffer;
  private final BloomFilter[] filters;

  /** {@code count} empty filters of {@code sizing}'s size. */
  HorizontalFilters(EngineMemory memory, int count, InspectorSizing sizing) {
    long filterBytes = sizing.filterBytes();
    buffer = memory.allocate(Math.max(1, count * filterBytes));
    try {
      MemorySegment segment = buffer.segment();
      segment.fill((byte) 0);
      BloomFilter[] wrapped = new BloomFilter[count];
      for (int g = 0; g < count; g++) {
        wrapped[g] = BloomFilter.wrap(segment.asSlice(g * filterBytes, filterBytes), InspectorSizing.HASHES);
      }
      filters = wrapped;
    } catch (RuntimeException e) {
      buffer.close();
      throw e;
    }
  }

  /** The filters, indexed by sub-partition; shared, not copied. */
  BloomFilter[] filters() {
    return filters;
  }

  @Override
  public void close() {
    buffer.close();
  }
}
