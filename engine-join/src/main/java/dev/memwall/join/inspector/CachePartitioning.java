package dev.memwall.join.inspector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Enhanced cache partitioning of one memory partition (seed 002, section 5.6.5): its build and
 * probe tuples are re-partitioned (copied) into cache-sized sub-partitions by the low 32 key bits,
 * and each pair is joined with a cache-resident table ({@link CacheTable}); a partition whose build
 * tuples already fit one sub-partition is joined where it lies. It is the join of partitions with
 * many candidates per probe tuple (many duplicate build keys), of runs that fall back, and of the
 * baseline; it exists apart from {@link JoinPhase} because it needs none of the inspection's
 * results.
 *
 * <p>Ownership: reads the partitioned sides, which belong to the {@link RunContext}; copies into
 * the worker's {@link Scratch}. Thread safety: immutable; any number of workers may join different
 * partitions at once, each with its own table and scratch. Partition numbers are the run's own and
 * are not checked.
 */
final class CachePartitioning {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  private final int threads;
  private final int recordBytes;
  private final int perSub;
  private final MemorySegment buildRecords;
  private final MemorySegment buildCodes;
  private final int[] buildStart;
  private final MemorySegment probeRecords;
  private final MemorySegment probeCodes;
  private final int[] probeStart;

  CachePartitioning(Partitioning partitioning, PartitionedSide build, PartitionedSide probe) {
    this.threads = partitioning.threads();
    this.recordBytes = partitioning.recordBytes();
    this.perSub = partitioning.sizing().tuplesPerSubPartition();
    this.buildRecords = build.records();
    this.buildCodes = build.codes();
    this.buildStart = build.start();
    this.probeRecords = probe.records();
    this.probeCodes = probe.codes();
    this.probeStart = probe.start();
  }

  /** Joins memory partition {@code p} into {@code table}'s output, re-partitioning through {@code scratch}. */
  void join(CacheTable table, Scratch scratch, int p) {
    long bFrom = buildStart[p * threads];
    int nb = (int) (buildStart[(p + 1) * threads] - bFrom);
    int np = probeStart[(p + 1) * threads] - probeStart[p * threads];
    if (nb == 0 || np == 0) {
      return;
    }
    int subs = (nb + perSub - 1) / perSub;
    if (subs <= 1) {
      table.build(buildRecords, buildCodes, bFrom, nb);
      for (int t = 0; t < threads; t++) {
        int region = p * threads + t;
        for (long pos = probeStart[region], end = probeStart[region + 1]; pos < end; pos++) {
          table.probe(probeCodes.getAtIndex(INT, pos), probeRecords, pos, pos);
        }
      }
      return;
    }
    scratch.ensure(nb, np, recordBytes);
    int[] buildAt = new int[subs + 1];
    int[] probeAt = new int[subs + 1];
    for (long i = bFrom; i < bFrom + nb; i++) {
      buildAt[subOf(buildRecords.get(LONG, i * recordBytes), subs) + 1]++;
    }
    for (int t = 0; t < threads; t++) {
      int region = p * threads + t;
      for (long pos = probeStart[region], end = probeStart[region + 1]; pos < end; pos++) {
        probeAt[subOf(probeRecords.get(LONG, pos * recordBytes), subs) + 1]++;
      }
    }
    for (int s = 0; s < subs; s++) {
      buildAt[s + 1] += buildAt[s];
      probeAt[s + 1] += probeAt[s];
    }
    int[] bCursor = Arrays.copyOf(buildAt, subs);
    int[] pCursor = Arrays.copyOf(probeAt, subs);
    MemorySegment sb = scratch.buildRecords;
    MemorySegment sbc = scratch.buildCodes;
    for (long i = bFrom; i < bFrom + nb; i++) {
      long o = i * recordBytes;
      int to = bCursor[subOf(buildRecords.get(LONG, o), subs)]++;
      MemorySegment.copy(buildRecords, o, sb, (long) to * recordBytes, recordBytes);
      sbc.setAtIndex(INT, to, buildCodes.getAtIndex(INT, i));
    }
    MemorySegment sp = scratch.probeRecords;
    MemorySegment spc = scratch.probeCodes;
    MemorySegment origin = scratch.probeOrigin;
    for (int t = 0; t < threads; t++) {
      int region = p * threads + t;
      for (long pos = probeStart[region], end = probeStart[region + 1]; pos < end; pos++) {
        long o = pos * recordBytes;
        int to = pCursor[subOf(probeRecords.get(LONG, o), subs)]++;
        MemorySegment.copy(probeRecords, o, sp, (long) to * recordBytes, recordBytes);
        spc.setAtIndex(INT, to, probeCodes.getAtIndex(INT, pos));
        origin.setAtIndex(INT, to, (int) pos);
      }
    }
    for (int s = 0; s < subs; s++) {
      if (buildAt[s + 1] == buildAt[s] || probeAt[s + 1] == probeAt[s]) {
        continue;
      }
      table.build(sb, sbc, buildAt[s], buildAt[s + 1] - buildAt[s]);
      for (int i = probeAt[s]; i < probeAt[s + 1]; i++) {
        table.probe(spc.getAtIndex(INT, i), sp, i, origin.getAtIndex(INT, i));
      }
    }
  }

  /** The sub-partition of {@code key} among {@code subs}: its low 32 bits, scaled. */
  private static int subOf(long key, int subs) {
    return (int) (((key & 0xFFFF_FFFFL) * subs) >>> 32);
  }
}
