package dev.memwall.join.inspector;

import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.HashedTuples;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.algorithm.HashedSide;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The probe side after the partition and inspection phase (seed 002, section 5.4.4): its tuples in
 * memory partitions, a matched flag per tuple where the join type reports matches or misses, and,
 * when the run inspects, the {@link Inspection} of every tuple against its partition's filters. Each
 * thread scatters its share of the tuples (count, then move) and then inspects its own regions at
 * once, without waiting for the others: a region is written by its thread only. It exists to keep
 * the probe scatter, which also keeps the keys' low halves for the inspection, apart from the build
 * scatter ({@link BuildSide}).
 *
 * <p>Ownership: everything {@link #partition} allocates belongs to the {@link RunContext}. Thread
 * safety: {@link #partition} runs on the run's threads and returns after all of them; then the
 * tuples are read-only and the flags are set only by {@link CacheTable}, to 1. Its inputs are the
 * run's own (the build side's sub-partitions and filters, or neither); nothing is checked.
 *
 * @param tuples the partitioned probe tuples
 * @param matched per probe position a flag: 0 not matched yet, 1 matched, {@link Inspection#SETTLED}
 *     dropped by the filters (and already reported); null for inner joins
 * @param inspection the inspection's findings, or null when the run does not inspect
 */
record ProbeSide(PartitionedSide tuples, MemorySegment matched, Inspection inspection) {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  /**
   * Partitions {@code left}'s tuples and, with {@code filters} (null: no inspection), inspects them
   * against {@code subs}' filters.
   */
  static ProbeSide partition(Partitioning partitioning, HashedSide left, SubPartitions subs,
      PartitionFilters filters) {
    RunContext run = partitioning.run();
    int count = left.count();
    int partitions = partitioning.partitions();
    int threads = partitioning.threads();
    boolean inspect = filters != null;
    PartitionedSide tuples = partitioning.layOut(left.tuples(), count);
    int[] probeStart = tuples.start();
    MemorySegment probeRecords = tuples.records();
    MemorySegment probeCodes = tuples.codes();
    // the keys' low halves beside the codes, so that the inspection reads 8 bytes a tuple, not a record's line
    MemorySegment probeLow = inspect ? run.allocate((long) count * Integer.BYTES, Placement.DEFAULT) : null;
    MemorySegment matched = null;
    if (run.type() != JoinType.INNER) {
      matched = run.allocate(Math.max(1, count), Placement.DEFAULT);
      matched.fill((byte) 0);
    }
    Inspection inspection = inspect ? new Inspection(partitioning, tuples, probeLow, matched, subs, filters) : null;
    MemorySegment hashes = left.tuples().hashes();
    MemorySegment rows = left.tuples().rows();
    run.parallel(t -> {
      // the thread's write cursors, one per partition, in an array of its own (see Partitioning.histograms)
      int[] cursor = new int[partitions];
      for (int p = 0; p < partitions; p++) {
        cursor[p] = probeStart[p * threads + t];
      }
      for (int i = partitioning.shareStart(count, t), end = partitioning.shareStart(count, t + 1); i < end; i++) {
        long key = hashes.getAtIndex(HashedTuples.HASH, i);
        int code = Partitioning.code(key);
        int position = cursor[partitioning.partitionOf(code)]++;
        partitioning.writeRecord(probeRecords, position, key, rows.getAtIndex(HashedTuples.ROW, i));
        probeCodes.setAtIndex(INT, position, code);
        if (inspect) {
          probeLow.setAtIndex(INT, position, (int) key);
        }
      }
      if (inspect) {
        inspection.inspect(t);
      }
    });
    return new ProbeSide(tuples, matched, inspection);
  }
}
