package dev.memwall.join.inspector;

import dev.memwall.core.bloom.BloomFilter;
import dev.memwall.core.partition.HashedTuples;
import dev.memwall.join.algorithm.HashedSide;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The build side after the partition phase (seed 002, section 5.4.4): its tuples in memory
 * partitions and, when the run inspects, its sub-partitions and their horizontal filters, each
 * tuple added to its sub-partition's filter as it is moved. It exists to keep the build side's
 * scatter, which fills the filters, apart from the probe side's, which fills the inspection's
 * inputs.
 *
 * <p>Ownership: the partitioned tuples and the filters belong to the {@link RunContext}; the run
 * frees the filters once {@link PartitionFilters} has transposed them, after which {@link #filters}
 * must not be read. Thread safety: {@link #partition} runs on the run's threads and returns after
 * all of them; the result is read-only. Its inputs are the run's own; nothing is checked.
 *
 * @param tuples the partitioned build tuples
 * @param subs the sub-partitions, or null when the run does not inspect
 * @param filters the sub-partitions' filters until transposed, or null when the run does not inspect
 */
record BuildSide(PartitionedSide tuples, SubPartitions subs, HorizontalFilters filters) {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  /** Partitions {@code right}'s tuples, filling a filter per sub-partition when {@code inspect}. */
  static BuildSide partition(Partitioning partitioning, HashedSide right, boolean inspect) {
    RunContext run = partitioning.run();
    int count = right.count();
    int partitions = partitioning.partitions();
    int threads = partitioning.threads();
    PartitionedSide tuples = partitioning.layOut(right.tuples(), count);
    int[] buildStart = tuples.start();
    MemorySegment buildRecords = tuples.records();
    MemorySegment buildCodes = tuples.codes();
    int perSub = partitioning.sizing().tuplesPerSubPartition();
    SubPartitions subs = null;
    HorizontalFilters horizontal = null;
    if (inspect) {
      subs = SubPartitions.of(buildStart, threads, perSub);
      horizontal = run.own(new HorizontalFilters(run.memory(), subs.count(), partitioning.sizing()));
    }
    BloomFilter[] f = horizontal == null ? null : horizontal.filters();
    int[] subFirst = subs == null ? null : subs.first();
    MemorySegment hashes = right.tuples().hashes();
    MemorySegment rows = right.tuples().rows();
    run.parallel(t -> {
      int[] cursor = new int[partitions];
      for (int i = partitioning.shareStart(count, t), end = partitioning.shareStart(count, t + 1); i < end; i++) {
        long key = hashes.getAtIndex(HashedTuples.HASH, i);
        int code = Partitioning.code(key);
        int p = partitioning.partitionOf(code);
        int region = p * threads + t;
        int c = cursor[p]++;
        long position = buildStart[region] + c;
        partitioning.writeRecord(buildRecords, position, key, rows.getAtIndex(HashedTuples.ROW, i));
        buildCodes.setAtIndex(INT, position, code);
        if (f != null) {
          f[subFirst[region] + c / perSub].add(key);
        }
      }
    });
    return new BuildSide(tuples, subs, horizontal);
  }
}
