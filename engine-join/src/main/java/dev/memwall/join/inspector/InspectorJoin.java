package dev.memwall.join.inspector;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.partition.HashedTuples;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.algorithm.HashedSide;
import dev.memwall.join.algorithm.JoinInput;
import dev.memwall.join.algorithm.JoinMethod;
import dev.memwall.join.algorithm.JoinOutput;

/**
 * The inspector join of seed 002, chapter 5, and its fallback and baseline, enhanced cache
 * partitioning, over in-memory partitions: the entry point, its settings and report, and the order
 * of the phases, each of which is a class of this package holding its own state.
 *
 * <p><b>Partition and inspection phase</b> (section 5.4.4). Both inputs are partitioned alike
 * ({@link Partitioning}) by the top bits of their 4-byte hash codes into
 * {@link InspectorSizing#partitions()} memory partitions of {@code W}-byte tuples (see
 * {@link Settings#tupleBytes}) with the hash codes beside them. While the build side is partitioned
 * ({@link BuildSide}), every {@code K} consecutive pages of a thread's part of a partition form a
 * sub-partition ({@link SubPartitions}) with its own 3-hash Bloom filter ({@link HorizontalFilters};
 * eq. 5.1 for K, fpr/S per filter), then transposed to vertical sets of up to 64
 * ({@link PartitionFilters}) so that testing a probe tuple against all of a partition's filters costs
 * 3 loads per 64 sub-partitions. Once the probe side is partitioned ({@link ProbeSide}), its tuples
 * are tested against their partition's filters ({@link Inspection}): a tuple no filter admits is
 * dropped (reported at once by outer and anti joins); the others' candidate sub-partitions are
 * recorded, counted, and sorted by sub-partition ({@link SortedCandidates}).
 *
 * <p><b>Join phase</b> ({@link JoinPhase}). Per partition, the average number of candidate
 * sub-partitions per probe tuple decides (section 5.6.5): under {@value #MAX_AVERAGE_CANDIDATES},
 * the cache-stationary join (section 5.5), each sub-partition's cache-resident table
 * ({@link CacheTable}) probed by its sorted candidates, touching tuples only on hash hits and never
 * moving them. Otherwise (many duplicate build keys), enhanced cache partitioning
 * ({@link CachePartitioning}): the partition's tuples re-partitioned (copied) into cache-sized
 * sub-partitions by other hash bits, each pair joined with the same cache-resident table.
 *
 * <p><b>Fallbacks before partitioning</b> (the thesis's, {@link Fallback}): tuples under
 * {@value #MIN_TUPLE_BYTES} bytes, or filters that would not fit the memory budget, run enhanced
 * cache partitioning throughout (no filters), as does {@link Settings#inspect()} false (the baseline
 * algorithm).
 *
 * <p>Resources: all working memory is charged to the input's {@link EngineMemory}, owned by the
 * run's {@link RunContext}, and freed before {@link #run} returns or throws: both sides' extracted
 * tuples (12 bytes a row), both sides' partitions ({@code W + 4} bytes a tuple, 4 more per probe
 * tuple while inspecting), the filters (the bits per key of fpr/S, twice while transposing),
 * candidate lists and sorted pairs (8 bytes per candidate, twice), a matched flag per probe tuple for
 * outer, semi and anti joins, and each thread's re-partitioning scratch.
 *
 * <p>Thread safety: {@link #run} starts and joins its own threads; a streaming consumer is called
 * from them one chunk at a time. Bad input (settings out of range) throws
 * {@link IllegalArgumentException}.
 */
public final class InspectorJoin implements JoinMethod<InspectorJoin.Settings> {
  /** The algorithm: the inspector join, or enhanced cache partitioning as {@link Settings#inspect} says. */
  public static final InspectorJoin METHOD = new InspectorJoin();
  /** Average candidate sub-partitions per probe tuple from which a partition is cache-partitioned instead. */
  public static final double MAX_AVERAGE_CANDIDATES = 4;
  /** Tuples narrower than this are joined by enhanced cache partitioning (the thesis's 20-byte case). */
  public static final int MIN_TUPLE_BYTES = 20;

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
    /** The tuples are narrower than {@value InspectorJoin#MIN_TUPLE_BYTES} bytes. */
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
      long partitionNanos, long joinNanos) implements JoinMethod.Details {}

  private InspectorJoin() {}

  @Override
  public long workingBytes(JoinInput sides, Settings settings) {
    return bytesFor(sides.left().rowCount(), sides.leftNullBound(), sides.right().rowCount(), settings);
  }

  /** Runs the join into {@code out}; every buffer is freed when this returns or throws. */
  @Override
  public Report run(JoinInput input, JoinOutput out, Settings settings) {
    RunContext run = new RunContext(input, out, settings.threads());
    try {
      run.forkOutputs();
      Report report = execute(run, settings);
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
    long sides = HashedTuples.bytesFor(leftRows) + HashedTuples.bytesFor(rightRows) + Math.max(1, leftNullBound) * 4;
    long partitioned = (leftRows + rightRows) * w + leftRows;
    long scratch = (long) settings.threads() * 2 * (rightRows + leftRows) / s.partitions() * (w + 4);
    return sides + partitioned + scratch;
  }

  /** Bytes of the horizontal filters (and about as many for the vertical ones). */
  private static long filterBytes(InspectorSizing s, long buildTuples, int threads) {
    long subs = buildTuples / s.tuplesPerSubPartition() + (long) s.partitions() * threads;
    return subs * s.filterBytes();
  }

  /** The phases in order; each frees what it no longer needs as soon as the next has what it needs. */
  private static Report execute(RunContext run, Settings settings) {
    long started = System.nanoTime();
    JoinInput input = run.input();
    HashedSide right = run.own(HashedSide.extract(run.memory(), input.right(), false));
    int n = right.count();
    InspectorSizing sizing = InspectorSizing.of(n, settings.tupleBytes(), settings.pageBytes(), settings.cacheBytes());
    Fallback fallback = settings.inspect() ? fallback(run, settings, sizing, n) : null;
    boolean inspect = settings.inspect() && fallback == null;
    Partitioning partitioning = new Partitioning(run, sizing);
    BuildSide build = BuildSide.partition(partitioning, right, inspect);
    run.free(right);
    PartitionFilters filters = null;
    if (inspect) {
      filters = PartitionFilters.transpose(partitioning, build.subs(), build.filters());
      run.free(build.filters());
    }
    HashedSide left = run.own(HashedSide.extract(run.memory(), input.left(), run.type().reportsUnmatched()));
    left.emitNullRows(input, run.out(0));
    ProbeSide probe = ProbeSide.partition(partitioning, left, build.subs(), filters);
    run.free(left);
    Inspection inspection = probe.inspection();
    boolean[] stationary = inspect ? inspection.choosePhases(settings.phase()) : new boolean[sizing.partitions()];
    SortedCandidates sorted = null;
    if (inspect) {
      sorted = SortedCandidates.sort(partitioning, inspection, build.subs(), stationary, probe.tuples().codes());
      inspection.releaseCandidates();
    }
    long partitioned = System.nanoTime();
    JoinPhase join = new JoinPhase(partitioning, build, probe, stationary, sorted);
    join.run();
    if (run.type() != JoinType.INNER) {
      join.finishProbeTuples();
    }
    long joined = System.nanoTime();
    long candidateSum = inspect ? inspection.candidateSum() : 0;
    long survivors = inspect ? inspection.survivors() : 0;
    int stationaryCount = 0;
    for (boolean s : stationary) {
      stationaryCount += s ? 1 : 0;
    }
    return new Report(inspect, fallback, sizing, inspect ? build.subs().count() : 0,
        inspect && survivors > 0 ? (double) candidateSum / survivors : 0, inspect ? inspection.dropped() : 0,
        stationaryCount, sizing.partitions() - stationaryCount, partitioned - started, joined - partitioned);
  }

  /** Why an inspector join that was asked to inspect cannot, or null when it can (the right side is extracted). */
  private static Fallback fallback(RunContext run, Settings settings, InspectorSizing sizing, int buildTuples) {
    if (settings.tupleBytes() < MIN_TUPLE_BYTES) {
      return Fallback.NARROW_TUPLES;
    }
    JoinInput input = run.input();
    long rest = bytesFor(input.left().rowCount(), input.leftNullBound(), buildTuples, settings)
        - HashedTuples.bytesFor(buildTuples);
    // horizontal and vertical filters; per probe tuple its key's low half, a candidate and its sorted copy
    long bytes = 2 * filterBytes(sizing, buildTuples, run.threads()) + 20L * input.left().rowCount() + rest;
    try { // through the memory, not its budget: freed memory it keeps for reuse is given up before a refusal
      run.memory().reserveHeap(bytes);
      run.memory().releaseHeap(bytes);
      return null;
    } catch (BudgetExceededException e) {
      return Fallback.FILTERS_OVER_BUDGET;
    }
  }
}
