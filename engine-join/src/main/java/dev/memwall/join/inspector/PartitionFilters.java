package dev.memwall.join.inspector;

import dev.memwall.core.bloom.BloomFilter;
import dev.memwall.core.bloom.VerticalBloomFilters;
import dev.memwall.core.memory.Placement;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * Each memory partition's sub-partition filters in the vertical (bit-sliced) layout, up to
 * {@value VerticalBloomFilters#MAX_FILTERS} to a set ({@link VerticalBloomFilters}), so that testing
 * a probe tuple against all of a partition's filters costs {@value InspectorSizing#HASHES} loads per
 * 64 sub-partitions and yields a bit mask of its candidates (seed 002, section 5.4.4). Partition
 * {@code p}'s sets are {@code sets[first[p]]} to {@code sets[first[p + 1] - 1]}; bit {@code b} of
 * set {@code s}'s mask is sub-partition {@code SubPartitions.first()[p t] + (s - first[p]) 64 + b}.
 * It exists so that the inspection ({@link Inspection}) reads only this layout.
 *
 * <p>Ownership: the sets live in one off-heap buffer owned by the {@link RunContext}, valid until it
 * closes; the arrays are shared, not copied, and must not be changed. Thread safety: immutable once
 * {@link #transpose} has returned; test from any number of threads. Its inputs are the run's own;
 * nothing is checked.
 *
 * @param first per partition, its first set; one more entry: the set count
 * @param sets the sets, partition after partition
 */
record PartitionFilters(int[] first, VerticalBloomFilters[] sets) {
  /**
   * Transposes the horizontal filters of {@code subs}, partition by partition, on the run's
   * threads. The horizontal filters are left to the caller to free.
   */
  static PartitionFilters transpose(Partitioning partitioning, SubPartitions subs, HorizontalFilters horizontal) {
    int partitions = partitioning.partitions();
    int threads = partitioning.threads();
    int[] subFirst = subs.first();
    int[] setFirst = new int[partitions + 1];
    int total = 0;
    for (int p = 0; p < partitions; p++) {
      setFirst[p] = total;
      int count = subFirst[(p + 1) * threads] - subFirst[p * threads];
      total += (count + VerticalBloomFilters.MAX_FILTERS - 1) / VerticalBloomFilters.MAX_FILTERS;
    }
    setFirst[partitions] = total;
    VerticalBloomFilters[] sets = new VerticalBloomFilters[total];
    long setBytes = VerticalBloomFilters.bytesFor(partitioning.sizing().filterBits());
    MemorySegment vertical = partitioning.run().allocate(total * setBytes, Placement.HUGE_PAGES);
    vertical.fill((byte) 0);
    List<BloomFilter> all = Arrays.asList(horizontal.filters());
    partitioning.run().parallel(t -> {
      for (int p = t; p < partitions; p += threads) {
        int first = subFirst[p * threads];
        int end = subFirst[(p + 1) * threads];
        for (int s = setFirst[p]; s < setFirst[p + 1]; s++) {
          int from = first + (s - setFirst[p]) * VerticalBloomFilters.MAX_FILTERS;
          int to = Math.min(end, from + VerticalBloomFilters.MAX_FILTERS);
          sets[s] = VerticalBloomFilters.transpose(all.subList(from, to), vertical.asSlice(s * setBytes, setBytes));
        }
      }
    });
    return new PartitionFilters(setFirst, sets);
  }
}
