package dev.memwall.join.inspector;

import dev.memwall.core.bloom.VerticalBloomFilters;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.partition.Tuples;
import dev.memwall.join.JoinType;
import dev.memwall.join.algorithm.ExtractedSide;
import dev.memwall.join.algorithm.JoinInput;
import dev.memwall.join.algorithm.JoinOutput;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The inspector join of seed 002, chapter 5, and its fallback and baseline, enhanced cache
 * partitioning, over in-memory partitions.
 *
 * <p><b>Partition and inspection phase</b> (section 5.4.4). Both inputs are partitioned by the top
 * bits of their 4-byte hash codes into {@link InspectorSizing#partitions()} memory partitions of
 * {@code W}-byte tuples (key, row id, payload up to the tuple width; see {@link Settings#tupleBytes})
 * with the hash codes beside them in a slot array. Each of {@code t} threads partitions a share of the
 * input (count, then move), and partition {@code i} is the union of every thread's {@code i}-th
 * output, laid out one after the other. While the build side is partitioned, every {@code K}
 * consecutive pages of a thread's part of a partition form a sub-partition with its own 3-hash Bloom
 * filter (eq. 5.1 for K, fpr/S per filter). The filters are then transposed to the vertical
 * (bit-sliced) layout, up to 64 per set ({@link VerticalBloomFilters}), so that testing a probe tuple
 * against all of a partition's filters costs 3 loads per 64 sub-partitions. Once the probe side is
 * partitioned, each partition's tuples are tested against its filters (see {@link #partitionProbe}
 * for why not during the scatter): a tuple no filter admits is dropped (reported at once by outer
 * and anti joins); the others' candidate sub-partitions are recorded and counted per sub-partition.
 *
 * <p><b>Join phase.</b> Per partition, the average number of candidate sub-partitions per probe
 * tuple decides (section 5.6.5): under {@value #MAX_AVERAGE_CANDIDATES}, the cache-stationary join
 * (section 5.5): a counting sort of (probe position, hash code) pairs per sub-partition, then each
 * sub-partition's cache-resident table ({@link CacheTable}) probed by its pairs, touching tuples only
 * on hash hits and never moving them. Otherwise (many duplicate build keys), enhanced cache
 * partitioning: the partition's build and probe tuples are re-partitioned (copied) into
 * cache-sized sub-partitions by other hash bits, and each pair joined with the same cache-resident
 * table. Partitions and sub-partitions are shared among the threads through a counter.
 *
 * <p><b>Fallbacks before partitioning</b> (the thesis's): tuples under {@value #MIN_TUPLE_BYTES}
 * bytes, or filters that would not fit the memory budget, run enhanced cache partitioning
 * throughout (no filters), as does {@link Settings#inspect()} false (the baseline algorithm).
 *
 * <p>On the JVM there is no prefetch instruction: where the thesis prefetches (build tuples of a
 * sub-partition, the sorted probe arrays, re-partitioning) this code relies on sequential access
 * and the out-of-order core; see {@code dev.memwall.join.prefetch} for the staged loops.
 *
 * <p>Resources: all working memory is charged to the input's {@link EngineMemory} and freed before
 * {@link #run} returns or throws: both sides' extracted tuples (12 bytes a row), both sides'
 * partitions ({@code W + 4} bytes a tuple, 4 more per probe tuple while inspecting), the filters (the
 * bits per key of fpr/S, twice while transposing), candidate lists and sorted pairs (8 bytes per
 * candidate, twice), a matched flag per probe tuple for outer, semi and anti joins, and each
 * thread's re-partitioning scratch.
 *
 * <p>Thread safety: {@link #run} starts and joins its own threads; a streaming consumer is called
 * from them one chunk at a time. Bad input (settings out of range) throws
 * {@link IllegalArgumentException}.
 */
public final class InspectorJoin {
  /** Average candidate sub-partitions per probe tuple from which a partition is cache-partitioned instead. */
  public static final double MAX_AVERAGE_CANDIDATES = 4;
  /** Tuples narrower than this are joined by enhanced cache partitioning (the thesis's 20-byte case). */
  public static final int MIN_TUPLE_BYTES = 20;

  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  /** Which join phase runs; AUTO is the thesis's choice from the inspection. */
  public enum Phase {
    /** Cache-stationary where the inspection allows, enhanced cache partitioning where it does not. */
    AUTO,
    /** Cache-stationary in every partition (when the filters were built at all). */
    CACHE_STATIONARY,
    /** Enhanced cache partitioning in every partition. */
    CACHE_PARTITIONING
  }

  /**
   * Why the inspector join ran enhanced cache partitioning throughout instead of building filters
   * and inspecting (the thesis's fallbacks before partitioning). Callers compare the constant; the
   * {@linkplain #description() description} is the text for reports and CLI output.
   */
  public enum Fallback {
    /** The tuples are narrower than {@value InspectorJoin#MIN_TUPLE_BYTES} bytes (the thesis's 20-byte case). */
    NARROW_TUPLES("the tuples are under " + MIN_TUPLE_BYTES + " bytes wide"),
    /** The filters and candidate lists would not fit the memory budget beside the partitions. */
    FILTERS_OVER_BUDGET("the filters would not fit the memory budget");

    private final String description;

    Fallback(String description) {
      this.description = description;
    }

    /** One line saying why, for reports and CLI output. */
    public String description() {
      return description;
    }
  }

  /**
   * How the join runs.
   *
   * @param tupleBytes the width of the tuples moved through the partitions (at least 16): the 8-byte
   *     key, the 4-byte row id and payload. memwall's joins produce row ids and materialize late, so
   *     the payload stands in for the columns an early-materializing join would carry (it is the key
   *     repeated); it gives the tuple size the thesis's trade-offs depend on
   * @param threads partitioning and joining threads
   * @param pageBytes P, the page of eq. 5.1
   * @param cacheBytes C, the effective cache of eq. 5.1
   * @param phase the join phase
   * @param inspect build filters and inspect (the inspector join); false runs enhanced cache
   *     partitioning without filters
   */
  public record Settings(int tupleBytes, int threads, long pageBytes, long cacheBytes, Phase phase, boolean inspect) {
    public Settings {
      if (tupleBytes < 16 || tupleBytes > (1 << 16)) {
        throw new IllegalArgumentException("tuple width must be 16 to 65536 bytes, got " + tupleBytes);
      }
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be >= 1, got " + threads);
      }
      if (pageBytes < 16 || cacheBytes < 1) {
        throw new IllegalArgumentException("page (>= 16) and cache sizes must be positive: " + pageBytes + ", "
            + cacheBytes);
      }
      if (phase == null) {
        throw new IllegalArgumentException("a join phase is needed");
      }
    }

    /** Settings with P and C from {@code profile}. */
    public static Settings of(MachineProfile profile, int tupleBytes, int threads, Phase phase, boolean inspect) {
      return new Settings(tupleBytes, threads, profile.pageBytes(), InspectorSizing.effectiveCache(profile), phase,
          inspect);
    }
  }

  /**
   * What a run did.
   *
   * @param inspected whether filters were built and probe tuples inspected
   * @param fallback why the inspector join ran enhanced cache partitioning throughout, or null when
   *     it inspected or was not asked to ({@link Settings#inspect()} false)
   * @param sizing W, n, K, C and the partition count
   * @param subPartitions build sub-partitions (filters)
   * @param averageCandidates candidate sub-partitions per probe tuple that passed a filter (0 without filters)
   * @param droppedProbeTuples probe tuples no filter admitted
   * @param stationaryPartitions partitions joined cache-stationary
   * @param cachePartitionedPartitions partitions joined by enhanced cache partitioning
   * @param partitionNanos wall time of the partition and inspection phase (both sides, filters
   *     transposed, the counting sort included)
   * @param joinNanos wall time of the join phase
   */
  public record Report(boolean inspected, Fallback fallback, InspectorSizing sizing, int subPartitions,
      double averageCandidates, long droppedProbeTuples, int stationaryPartitions, int cachePartitionedPartitions,
      long partitionNanos, long joinNanos) {}

  private final RunContext run;
  private final JoinInput input;
  private final Settings settings;
  private final EngineMemory memory;
  private final JoinType type;
  private final int threads;
  private InspectorSizing sizing;
  private Partitioning partitioning;
  private int recordBytes;
  private int partitions;
  private boolean inspect;
  private Fallback fallback;
  // build side
  private MemorySegment buildRecords;
  private MemorySegment buildCodes;
  private int[] buildStart;
  private int[] subFirst;
  private long[] subStart;
  private int[] subPartition;
  private int subCount;
  private int[] setFirst;
  private VerticalBloomFilters[] sets;
  // probe side
  private MemorySegment probeRecords;
  private MemorySegment probeCodes;
  private int[] probeStart;
  private boolean[] stationary;
  private MemorySegment matched;
  // counting sort
  private long[] entryStart;
  private MemorySegment entries;

  private InspectorJoin(RunContext run, Settings settings) {
    this.run = run;
    this.input = run.input();
    this.settings = settings;
    this.memory = run.memory();
    this.type = run.type();
    this.threads = run.threads();
  }

  /** Runs the join into {@code out}; every buffer is freed when this returns or throws. */
  public static Report run(JoinInput input, JoinOutput out, Settings settings) {
    RunContext run = new RunContext(input, out, settings.threads());
    try {
      run.forkOutputs();
      Report report = new InspectorJoin(run, settings).execute();
      run.absorbOutputs();
      return report;
    } finally {
      run.close();
    }
  }

  /**
   * Working memory for these input sizes without the inspection (besides the re-partitioning scratch
   * of very unequal partitions): the filters and candidate lists (about 20 bytes a probe tuple, more
   * under duplicates) come on top when the budget has room for them, else the inspector join falls
   * back to enhanced cache partitioning.
   */
  public static long bytesFor(long leftRows, long leftNullBound, long rightRows, Settings settings) {
    InspectorSizing s = InspectorSizing.of(rightRows, settings.tupleBytes(), settings.pageBytes(),
        settings.cacheBytes());
    long w = s.recordBytes() + Integer.BYTES;
    long sides = Tuples.bytesFor(leftRows) + Tuples.bytesFor(rightRows) + Math.max(1, leftNullBound) * 4;
    long partitioned = (leftRows + rightRows) * w + leftRows;
    long scratch = (long) settings.threads() * 2 * (rightRows + leftRows) / s.partitions() * (w + 4);
    return sides + partitioned + scratch;
  }

  /** Bytes of the horizontal filters (and about as many for the vertical ones). */
  private static long filterBytes(InspectorSizing s, long buildTuples, int threads) {
    long subs = buildTuples / s.tuplesPerSubPartition() + (long) s.partitions() * threads;
    return subs * s.filterBytes();
  }

  private Report execute() {
    long started = System.nanoTime();
    ExtractedSide right = run.own(ExtractedSide.extract(memory, input.right(), false));
    int n = right.count();
    sizing = InspectorSizing.of(n, settings.tupleBytes(), settings.pageBytes(), settings.cacheBytes());
    recordBytes = sizing.recordBytes();
    partitions = sizing.partitions();
    partitioning = new Partitioning(run, sizing);
    inspect = settings.inspect();
    if (inspect && settings.tupleBytes() < MIN_TUPLE_BYTES) {
      fallback = Fallback.NARROW_TUPLES;
    } else if (inspect && !filtersFit(n)) {
      fallback = Fallback.FILTERS_OVER_BUDGET;
    }
    inspect &= fallback == null;
    BuildSide build = BuildSide.partition(partitioning, right, inspect);
    run.free(right);
    buildRecords = build.tuples().records();
    buildCodes = build.tuples().codes();
    buildStart = build.tuples().start();
    PartitionFilters filters = null;
    if (inspect) {
      SubPartitions subs = build.subs();
      subFirst = subs.first();
      subStart = subs.start();
      subPartition = subs.partition();
      subCount = subs.count();
      filters = PartitionFilters.transpose(partitioning, subs, build.filters());
      run.free(build.filters());
      setFirst = filters.first();
      sets = filters.sets();
    }
    ExtractedSide left = run.own(ExtractedSide.extract(memory, input.left(), type.reportsUnmatched()));
    left.emitNullRows(input, run.out(0));
    ProbeSide probe = ProbeSide.partition(partitioning, left, build.subs(), filters);
    run.free(left);
    probeRecords = probe.tuples().records();
    probeCodes = probe.tuples().codes();
    probeStart = probe.tuples().start();
    matched = probe.matched();
    Inspection inspection = probe.inspection();
    stationary = inspection != null ? inspection.choosePhases(settings.phase()) : new boolean[partitions];
    if (inspection != null) {
      SortedCandidates sorted = SortedCandidates.sort(partitioning, inspection, build.subs(), stationary, probeCodes);
      inspection.releaseCandidates();
      entryStart = sorted.start();
      entries = sorted.entries();
    }
    long partitioned = System.nanoTime();
    joinPhase();
    if (type != JoinType.INNER) {
      finishProbeTuples();
    }
    long joined = System.nanoTime();
    long candidateSum = inspect ? inspection.candidateSum() : 0;
    long survivors = inspect ? inspection.survivors() : 0;
    long droppedTotal = inspect ? inspection.dropped() : 0;
    int stationaryCount = 0;
    for (boolean s : stationary) {
      stationaryCount += s ? 1 : 0;
    }
    return new Report(inspect, fallback, sizing, inspect ? subCount : 0,
        inspect && survivors > 0 ? (double) candidateSum / survivors : 0, droppedTotal, stationaryCount,
        partitions - stationaryCount, partitioned - started, joined - partitioned);
  }

  /** Whether the budget holds the filters besides everything else the join will allocate (the right side is extracted). */
  private boolean filtersFit(int buildTuples) {
    long rest = bytesFor(input.left().rowCount(), type.reportsUnmatched() ? input.left().nullBound() : 0, buildTuples,
        settings) - Tuples.bytesFor(buildTuples);
    // horizontal and vertical filters; per probe tuple its key's low half, a candidate and its sorted copy
    long bytes = 2 * filterBytes(sizing, buildTuples, threads) + 20L * input.left().rowCount() + rest;
    try {
      memory.budget().reserve(bytes);
      memory.budget().release(bytes);
      return true;
    } catch (dev.memwall.core.memory.BudgetExceededException e) {
      return false;
    }
  }

  // ------------------------------------------------------------------------------------ join phase

  private void joinPhase() {
    List<Integer> units = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      if (!stationary[p]) {
        units.add(-(p + 1));
      }
    }
    if (inspect) {
      for (int g = 0; g < subCount; g++) {
        if (stationary[subPartition[g]] && entryStart[g + 1] > entryStart[g]) {
          units.add(g);
        }
      }
    }
    int[] work = units.stream().mapToInt(Integer::intValue).toArray();
    AtomicInteger next = new AtomicInteger();
    run.parallel(t -> {
      CacheTable table = new CacheTable(input, run.out(t), recordBytes, matched);
      try (Scratch scratch = new Scratch(memory)) {
        for (int u = next.getAndIncrement(); u < work.length; u = next.getAndIncrement()) {
          int unit = work[u];
          if (unit >= 0) {
            joinStationary(table, unit);
          } else {
            joinCachePartitioned(table, scratch, -unit - 1);
          }
        }
      }
    });
  }

  /** The cache-stationary join of one sub-partition with its sorted probe pairs (Figure 5.9). */
  private void joinStationary(CacheTable table, int g) {
    table.build(buildRecords, buildCodes, subStart[g], (int) (subStart[g + 1] - subStart[g]));
    MemorySegment e = entries;
    MemorySegment probes = probeRecords;
    for (long i = entryStart[g], end = entryStart[g + 1]; i < end; i++) {
      int position = e.get(INT, i * 8);
      table.probe(e.get(INT, i * 8 + 4), probes, position, position);
    }
  }

  /**
   * Enhanced cache partitioning of one memory partition: re-partitions (copies) its build and probe
   * tuples into cache-sized sub-partitions by the low 32 key bits, then joins each pair with a
   * cache-resident table. A partition that already fits is joined directly.
   */
  private void joinCachePartitioned(CacheTable table, Scratch scratch, int p) {
    long bFrom = buildStart[p * threads];
    int nb = (int) (buildStart[(p + 1) * threads] - bFrom);
    int np = 0;
    for (int t = 0; t < threads; t++) {
      np += probeStart[p * threads + t + 1] - probeStart[p * threads + t];
    }
    if (nb == 0 || np == 0) {
      return;
    }
    int perSub = sizing.tuplesPerSubPartition();
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

  private static int subOf(long key, int subs) {
    return (int) (((key & 0xFFFF_FFFFL) * subs) >>> 32);
  }

  /** Reports every probe tuple that passed the filters as matched or not (outer, semi, anti joins). */
  private void finishProbeTuples() {
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
