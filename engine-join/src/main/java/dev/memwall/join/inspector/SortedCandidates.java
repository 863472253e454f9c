package dev.memwall.join.inspector;

import dev.memwall.core.memory.Placement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The candidates of the partitions joined cache-stationary, grouped by sub-partition by the
 * counting sort of seed 002, section 5.5.1: 8-byte entries of (probe position, hash code), those of
 * sub-partition {@code g} at {@code [start[g], start[g + 1])}, in the order the inspecting threads
 * found them. It exists so that the cache-stationary join reads a sub-partition's probe tuples
 * sequentially, with the codes at hand, and touches a probe tuple's record only on a hash hit.
 *
 * <p>Ownership: the entries belong to the {@link RunContext}; {@code start} is shared, not copied,
 * and must not be changed. Thread safety: {@link #sort} runs on the run's threads, each scattering
 * its own candidate list to offsets from the per-thread counts, and returns after all of them; the
 * result is read-only. Its inputs are the run's own; nothing is checked.
 *
 * @param start per sub-partition, its first entry; one more entry: the entry count (sub-partitions
 *     of partitions not joined cache-stationary are empty)
 * @param entries the entries: probe position at offset 0, hash code at 4
 */
record SortedCandidates(long[] start, MemorySegment entries) {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  /** Sorts {@code inspection}'s candidates in the partitions {@code stationary} marks. */
  static SortedCandidates sort(Partitioning partitioning, Inspection inspection, SubPartitions subs,
      boolean[] stationary, MemorySegment probeCodes) {
    int threads = partitioning.threads();
    int subCount = subs.count();
    int[] subPartition = subs.partition();
    long[] entryStart = new long[subCount + 1];
    long[][] writeAt = new long[threads][subCount];
    long at = 0;
    for (int g = 0; g < subCount; g++) {
      entryStart[g] = at;
      if (!stationary[subPartition[g]]) {
        continue;
      }
      for (int t = 0; t < threads; t++) {
        writeAt[t][g] = at;
        at += inspection.candidateCounts(t)[g];
      }
    }
    entryStart[subCount] = at;
    MemorySegment entries = partitioning.run().allocate(at * 8, Placement.HUGE_PAGES);
    partitioning.run().parallel(t -> {
      CandidateList list = inspection.candidates(t);
      long[] cursor = writeAt[t].clone(); // the thread's own copy (see Partitioning.histograms)
      for (long i = 0, n = list.size(); i < n; i++) {
        long e = list.get(i);
        int g = (int) (e >>> 32);
        if (!stationary[subPartition[g]]) {
          continue;
        }
        int position = (int) e;
        long o = cursor[g]++ * 8;
        entries.set(INT, o, position);
        entries.set(INT, o + 4, probeCodes.getAtIndex(INT, position));
      }
    });
    return new SortedCandidates(entryStart, entries);
  }
}
