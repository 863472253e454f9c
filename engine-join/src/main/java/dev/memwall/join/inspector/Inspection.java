package dev.memwall.join.inspector;

import dev.memwall.core.bloom.VerticalBloomFilters;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.algorithm.JoinOutput;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The inspection of the probe side (seed 002, section 5.4.4) and what it finds: each thread tests
 * the tuples of its regions against their partition's vertical filters ({@link PartitionFilters}),
 * one partition after the other. A tuple no filter admits is dropped: reported at once by outer and
 * anti joins and flagged {@link #SETTLED} so that nothing reports it again. The others' candidate
 * sub-partitions are recorded ({@link CandidateList}) and counted per sub-partition, and the
 * candidates and survivors counted per partition, from which {@link #choosePhases} picks each
 * partition's join phase (section 5.6.5).
 *
 * <p>Why a pass of its own: the thesis tests while partitioning. Here the tuples are tested after
 * their side is partitioned, partition by partition, because one partition's filters (a vertical set
 * of about {@value InspectorSizing#TARGET_SUB_PARTITIONS} filters) fit the cache while all of them
 * together do not, so each test hits the cache instead of missing memory three times.
 *
 * <p>Ownership: the candidate lists are charged to the run's memory and owned by the
 * {@link RunContext}; {@link #releaseCandidates} frees them once the counting sort
 * ({@link SortedCandidates}) has read them. Thread safety: {@link #inspect} runs on each thread for
 * that thread's regions, and writes only that thread's lists, counts and flags; every other method
 * is for the run's thread once all have finished. Its inputs are the run's own; nothing is checked.
 */
final class Inspection {
  /** The matched flag of a probe tuple the filters dropped (already reported where the join type reports it). */
  static final byte SETTLED = 2;

  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  private final RunContext run;
  private final int partitions;
  private final int threads;
  private final int recordBytes;
  private final PartitionedSide probe;
  private final MemorySegment probeLow;
  private final MemorySegment matched;
  private final SubPartitions subs;
  private final PartitionFilters filters;
  private final CandidateList[] candidates;
  private final int[][] candidateCounts;
  private final long[][] partitionCandidates;
  private final long[][] partitionSurvivors;
  private final long[] dropped;

  /**
   * An inspection of {@code probe}, whose keys' low halves are {@code probeLow}, against
   * {@code filters}; allocates each thread's candidate list.
   */
  Inspection(Partitioning partitioning, PartitionedSide probe, MemorySegment probeLow, MemorySegment matched,
      SubPartitions subs, PartitionFilters filters) {
    this.run = partitioning.run();
    this.partitions = partitioning.partitions();
    this.threads = partitioning.threads();
    this.recordBytes = partitioning.recordBytes();
    this.probe = probe;
    this.probeLow = probeLow;
    this.matched = matched;
    this.subs = subs;
    this.filters = filters;
    this.candidateCounts = new int[threads][];
    this.partitionCandidates = new long[threads][partitions];
    this.partitionSurvivors = new long[threads][partitions];
    this.dropped = new long[threads];
    this.candidates = new CandidateList[threads];
    int count = probe.start()[partitions * threads];
    for (int t = 0; t < threads; t++) {
      int share = partitioning.shareStart(count, t + 1) - partitioning.shareStart(count, t);
      candidates[t] = run.own(new CandidateList(run.memory(), share + 16));
    }
  }

  /** Tests thread {@code t}'s probe tuples against their partition's filters, partition by partition. */
  void inspect(int t) {
    // every count the loop keeps per tuple is the thread's own local or array, published per
    // partition: the per-thread rows of the shared arrays are neighbours in memory
    JoinOutput out = run.out(t);
    CandidateList list = candidates[t];
    int[] perSub = new int[subs.count()];
    long droppedHere = 0;
    boolean reportsUnmatched = run.type().reportsUnmatched();
    int[] probeStart = probe.start();
    MemorySegment probeCodes = probe.codes();
    MemorySegment probeRecords = probe.records();
    int[] setFirst = filters.first();
    VerticalBloomFilters[] sets = filters.sets();
    int[] subFirst = subs.first();
    for (int p = 0; p < partitions; p++) {
      int region = p * threads + t;
      int firstSet = setFirst[p];
      int setCount = setFirst[p + 1] - firstSet;
      int firstSub = subFirst[p * threads];
      long candidateSum = 0;
      long survivors = 0;
      for (long pos = probeStart[region], end = probeStart[region + 1]; pos < end; pos++) {
        long key = ((long) probeCodes.getAtIndex(INT, pos) << 32) | (probeLow.getAtIndex(INT, pos) & 0xFFFF_FFFFL);
        long any = 0;
        for (int s = 0; s < setCount; s++) {
          long mask = sets[firstSet + s].candidates(key);
          any |= mask;
          int base = firstSub + s * VerticalBloomFilters.MAX_FILTERS;
          candidateSum += Long.bitCount(mask);
          for (; mask != 0; mask &= mask - 1) {
            int g = base + Long.numberOfTrailingZeros(mask);
            list.add(((long) g << 32) | pos);
            perSub[g]++;
          }
        }
        if (any == 0) {
          droppedHere++;
          if (matched != null) {
            matched.set(ValueLayout.JAVA_BYTE, pos, SETTLED);
          }
          if (reportsUnmatched) {
            out.emit(probeRecords.get(INT, pos * recordBytes + CacheTable.ROW_OFFSET), JoinIndex.NO_ROW);
          }
        } else {
          survivors++;
        }
      }
      partitionCandidates[t][p] = candidateSum;
      partitionSurvivors[t][p] = survivors;
    }
    candidateCounts[t] = perSub;
    dropped[t] = droppedHere;
  }

  /**
   * Per partition, whether it is joined cache-stationary: under {@link InspectorJoin.Phase#AUTO},
   * when its probe tuples that passed have fewer than
   * {@value InspectorJoin#MAX_AVERAGE_CANDIDATES} candidate sub-partitions on average (or none
   * passed); the other phases force one answer everywhere.
   */
  boolean[] choosePhases(InspectorJoin.Phase phase) {
    boolean[] stationary = new boolean[partitions];
    for (int p = 0; p < partitions; p++) {
      if (phase == InspectorJoin.Phase.CACHE_PARTITIONING) {
        continue;
      }
      long candidateSum = 0;
      long survivors = 0;
      for (int t = 0; t < threads; t++) {
        candidateSum += partitionCandidates[t][p];
        survivors += partitionSurvivors[t][p];
      }
      stationary[p] = phase == InspectorJoin.Phase.CACHE_STATIONARY || survivors == 0
          || candidateSum < InspectorJoin.MAX_AVERAGE_CANDIDATES * survivors;
    }
    return stationary;
  }

  /** Thread {@code t}'s candidates: (sub-partition, probe position) pairs in the order found. */
  CandidateList candidates(int t) {
    return candidates[t];
  }

  /** Thread {@code t}'s candidates per sub-partition; shared, not copied. */
  int[] candidateCounts(int t) {
    return candidateCounts[t];
  }

  /** Frees every thread's candidate list; {@link #candidates(int)} must not be read after. */
  void releaseCandidates() {
    for (CandidateList list : candidates) {
      run.free(list);
    }
  }

  /** Candidate sub-partitions found for all probe tuples. */
  long candidateSum() {
    return sum(partitionCandidates);
  }

  /** Probe tuples at least one filter admitted. */
  long survivors() {
    return sum(partitionSurvivors);
  }

  /** Probe tuples no filter admitted. */
  long dropped() {
    long total = 0;
    for (long d : dropped) {
      total += d;
    }
    return total;
  }

  private static long sum(long[][] perThread) {
    long total = 0;
    for (long[] row : perThread) {
      for (long v : row) {
        total += v;
      }
    }
    return total;
  }
}
