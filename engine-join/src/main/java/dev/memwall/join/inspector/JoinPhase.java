package dev.memwall.join.inspector;

import dev.memwall.join.common.JoinType;
import dev.memwall.join.algorithm.JoinOutput;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The join phase (seed 002, sections 5.5 and 5.6.5), and the report of probe tuples matched or not
 * after it. Its units of work are every sub-partition of a cache-stationary partition that has
 * candidates, joined by building the sub-partition's cache-resident table ({@link CacheTable}) and
 * probing it with the sub-partition's sorted (position, code) pairs ({@link SortedCandidates}),
 * touching tuples only on hash hits and never moving them, and every other partition, joined by
 * {@link CachePartitioning}. The threads share the units through a counter, each with a table and a
 * re-partitioning {@link Scratch} of its own. It exists to keep what the join phase reads, all of
 * it made by the partition and inspection phase, apart from how that phase made it.
 *
 * <p>On the JVM there is no prefetch instruction: where the thesis prefetches (build tuples of a
 * sub-partition, the sorted probe arrays, re-partitioning) this code relies on sequential access
 * and the out-of-order core; see {@code dev.memwall.join.prefetch} for the staged loops.
 *
 * <p>Ownership: reads the run's partitioned sides and sorted candidates; each worker's scratch is
 * charged to the run's memory and freed when the worker finishes, however it finishes. Thread
 * safety: {@link #run} and {@link #finishProbeTuples} run on the run's threads and return after all
 * of them; each thread writes its own output, and matched flags only as {@link CacheTable} says.
 * Its inputs are the run's own; nothing is checked.
 */
final class JoinPhase {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  private final RunContext run;
  private final int partitions;
  private final int threads;
  private final int recordBytes;
  private final MemorySegment buildRecords;
  private final MemorySegment buildCodes;
  private final MemorySegment probeRecords;
  private final int[] probeStart;
  private final MemorySegment matched;
  private final SubPartitions subs;
  private final boolean[] stationary;
  private final SortedCandidates sorted;
  private final CachePartitioning cachePartitioning;

  /**
   * The join phase of {@code build} and {@code probe}, partitions {@code stationary} marks joined
   * cache-stationary with {@code sorted} (null when none is: the run did not inspect).
   */
  JoinPhase(Partitioning partitioning, BuildSide build, ProbeSide probe, boolean[] stationary,
      SortedCandidates sorted) {
    this.run = partitioning.run();
    this.partitions = partitioning.partitions();
    this.threads = partitioning.threads();
    this.recordBytes = partitioning.recordBytes();
    this.buildRecords = build.tuples().records();
    this.buildCodes = build.tuples().codes();
    this.probeRecords = probe.tuples().records();
    this.probeStart = probe.tuples().start();
    this.matched = probe.matched();
    this.subs = build.subs();
    this.stationary = stationary;
    this.sorted = sorted;
    this.cachePartitioning = new CachePartitioning(partitioning, build.tuples(), probe.tuples());
  }

  /** Joins every unit, the threads taking the next one free. */
  void run() {
    List<Integer> units = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      if (!stationary[p]) {
        units.add(-(p + 1));
      }
    }
    if (sorted != null) {
      int[] subPartition = subs.partition();
      long[] entryStart = sorted.start();
      for (int g = 0; g < subs.count(); g++) {
        if (stationary[subPartition[g]] && entryStart[g + 1] > entryStart[g]) {
          units.add(g);
        }
      }
    }
    int[] work = units.stream().mapToInt(Integer::intValue).toArray();
    AtomicInteger next = new AtomicInteger();
    run.parallel(t -> {
      try (CacheTable table = new CacheTable(run.input(), run.out(t), recordBytes, matched);
          Scratch scratch = new Scratch(run.memory())) {
        for (int u = next.getAndIncrement(); u < work.length; u = next.getAndIncrement()) {
          int unit = work[u];
          if (unit >= 0) {
            joinStationary(table, unit);
          } else {
            cachePartitioning.join(table, scratch, -unit - 1);
          }
        }
      }
    });
  }

  /** The cache-stationary join of one sub-partition with its sorted probe pairs (Figure 5.9). */
  private void joinStationary(CacheTable table, int g) {
    long[] subStart = subs.start();
    long[] entryStart = sorted.start();
    table.build(buildRecords, buildCodes, subStart[g], (int) (subStart[g + 1] - subStart[g]));
    MemorySegment e = sorted.entries();
    MemorySegment probes = probeRecords;
    for (long i = entryStart[g], end = entryStart[g + 1]; i < end; i++) {
      int position = e.get(INT, i * 8);
      table.probe(e.get(INT, i * 8 + 4), probes, position, position);
    }
  }

  /**
   * Reports every probe tuple that passed the filters as matched or not, as the join type wants
   * (outer, semi and anti joins; not for inner joins, which have no flags).
   */
  void finishProbeTuples() {
    JoinType type = run.type();
    run.parallel(t -> {
      JoinOutput out = run.out(t);
      for (int p = t; p < partitions; p += threads) {
        for (int r = p * threads; r < (p + 1) * threads; r++) {
          for (long pos = probeStart[r], end = probeStart[r + 1]; pos < end; pos++) {
            byte flag = matched.get(ValueLayout.JAVA_BYTE, pos);
            if (flag != Inspection.SETTLED) {
              CacheTable.finish(type, out, probeRecords, recordBytes, pos, flag != 0);
            }
          }
        }
      }
    });
  }
}
