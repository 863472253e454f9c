package dev.memwall.join.inspector;

import dev.memwall.core.bloom.BloomFilter;
import dev.memwall.core.machine.MachineProfile;

/**
 * The sizes of an inspector join (seed 002, chapter 5, Table 5.1), derived from the machine profile
 * and the build side, so that nothing is hard-coded per machine.
 *
 * <ul>
 *   <li>{@code W} ({@link #recordBytes}): the tuple width moved through the partitions, rounded up
 *       to 8 bytes;
 *   <li>{@code n} ({@link #tuplesPerPage}): tuples per page of {@code P} bytes, the profile's page;
 *   <li>{@code K} ({@link #pagesPerSubPartition}): the largest K with {@code K P + K n H <= C}
 *       (eq. 5.1), {@code H} = {@value #TABLE_BYTES_PER_KEY} bytes of cache-resident hash table per
 *       key, {@code C} = the effective cache size;
 *   <li>{@code S}: sub-partitions per partition, {@value #TARGET_SUB_PARTITIONS} aimed at (the thesis
 *       uses 50; at most 64 fit one vertical word, so a probe tests them with 3 loads, and each thread
 *       adds at most one partly filled sub-partition), which fixes the partition count;
 *   <li>per-filter false-positive rate {@code fpr / S} (eq. 5.6) with 3 hash functions, hence the
 *       bits per key (28.5 at S = 50, Table 5.2).
 * </ul>
 *
 * @param recordBytes W
 * @param pageBytes P
 * @param tuplesPerPage n
 * @param pagesPerSubPartition K
 * @param cacheBytes C
 * @param partitions memory partitions (each with about S sub-partitions)
 * @param filterBits bits of every sub-partition filter (a multiple of 64)
 */
public record InspectorSizing(int recordBytes, long pageBytes, int tuplesPerPage, int pagesPerSubPartition,
    long cacheBytes, int partitions, long filterBits) {
  /** H: the cache-resident table's bytes per key (bucket head, chain link, hash code, and slack). */
  public static final int TABLE_BYTES_PER_KEY = 16;
  /** S aimed at; partitions are sized so that each holds about this many sub-partitions. */
  public static final int TARGET_SUB_PARTITIONS = 48;
  /** The aggregate false-positive rate of a partition's filters (the thesis's fpr). */
  public static final double FALSE_POSITIVE_RATE = 0.05;
  /** Hash functions per filter (the thesis's d). */
  public static final int HASHES = 3;
  /** The fraction of the cache the join phase may count on (the thesis's footnote: about half). */
  public static final double CACHE_FRACTION = 0.5;
  /** The most partitions. */
  public static final int MAX_PARTITIONS = 1 << 16;

  /** Tuples of one build sub-partition: {@code K n}. */
  public int tuplesPerSubPartition() {
    return pagesPerSubPartition * tuplesPerPage;
  }

  /** Bytes of one horizontal filter. */
  public long filterBytes() {
    return BloomFilter.bytesFor(filterBits);
  }

  /**
   * The sizing for {@code buildTuples} build tuples of {@code tupleBytes} bytes (at least 16).
   *
   * @param cacheBytes C, see {@link #effectiveCache}
   */
  public static InspectorSizing of(long buildTuples, int tupleBytes, long pageBytes, long cacheBytes) {
    if (tupleBytes < 16) {
      throw new IllegalArgumentException("tuples hold at least the 8-byte key and the row id: 16 bytes, got "
          + tupleBytes);
    }
    if (pageBytes < 1 || cacheBytes < 1) {
      throw new IllegalArgumentException("page and cache sizes must be positive: " + pageBytes + ", " + cacheBytes);
    }
    int record = (tupleBytes + 7) & -8;
    int perPage = (int) Math.max(1, pageBytes / record);
    long pagesPerSub = Math.max(1, cacheBytes / (pageBytes + (long) perPage * TABLE_BYTES_PER_KEY));
    pagesPerSub = Math.min(pagesPerSub, Integer.MAX_VALUE / 2 / perPage);
    long perSub = pagesPerSub * perPage;
    long partitions = Math.min(MAX_PARTITIONS,
        Math.max(1, (buildTuples + perSub * TARGET_SUB_PARTITIONS - 1) / (perSub * TARGET_SUB_PARTITIONS)));
    double bitsPerKey = BloomFilter.bitsPerKey(FALSE_POSITIVE_RATE / TARGET_SUB_PARTITIONS, HASHES);
    long bits = Math.max(64, ((long) Math.ceil(bitsPerKey * perSub) + 63) & -64L);
    return new InspectorSizing(record, pageBytes, perPage, (int) pagesPerSub, cacheBytes, (int) partitions, bits);
  }

  /**
   * C: {@value #CACHE_FRACTION} of {@link MachineProfile#fastCacheBytes()}, the largest data cache
   * that still behaves as a cache.
   */
  public static long effectiveCache(MachineProfile profile) {
    return Math.max(1, (long) (profile.fastCacheBytes() * CACHE_FRACTION));
  }

}
