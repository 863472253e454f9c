package dev.memwall.join.inspector;

/**
 * The build side's sub-partitions (seed 002, section 5.4.4): every {@code K} consecutive pages of a
 * thread's region of a partition ({@link InspectorSizing#tuplesPerSubPartition()} tuples, eq. 5.1)
 * form one, the last of a region possibly partly filled, so that a sub-partition and its
 * cache-resident table fit the effective cache. Each has its own Bloom filter
 * ({@link HorizontalFilters}). They are numbered partition-major, so that partition {@code p}'s are
 * {@code [first[p t], first[(p + 1) t])}. It exists to give the filters, the inspection, the
 * counting sort and the cache-stationary join one numbering.
 *
 * <p>Ownership: heap arrays only. Thread safety: immutable once made; the arrays are shared, not
 * copied, and must not be changed. The region starts passed to {@link #of} are the run's own and
 * are not checked.
 *
 * @param first per region, its first sub-partition; one more entry: the count
 * @param start per sub-partition, its first build tuple's position; one more entry: the build tuple
 *     count
 * @param partition per sub-partition, its memory partition
 * @param count the number of sub-partitions
 */
record SubPartitions(int[] first, long[] start, int[] partition, int count) {
  /**
   * The sub-partitions of the build regions {@code regionStart} (partition-major, {@code threads}
   * a partition, one more entry: the tuple count) at {@code perSub} tuples each.
   */
  static SubPartitions of(int[] regionStart, int threads, int perSub) {
    int regions = regionStart.length - 1;
    int[] first = new int[regions + 1];
    int subs = 0;
    for (int r = 0; r < regions; r++) {
      first[r] = subs;
      int tuples = regionStart[r + 1] - regionStart[r];
      subs += (tuples + perSub - 1) / perSub;
    }
    first[regions] = subs;
    long[] start = new long[subs + 1];
    int[] partition = new int[subs];
    for (int r = 0; r < regions; r++) {
      for (int g = first[r]; g < first[r + 1]; g++) {
        start[g] = regionStart[r] + (long) (g - first[r]) * perSub;
        partition[g] = r / threads;
      }
    }
    start[subs] = regionStart[regions];
    return new SubPartitions(first, start, partition, subs);
  }
}
