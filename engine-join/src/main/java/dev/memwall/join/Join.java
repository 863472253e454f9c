package dev.memwall.join;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.partition.RadixPlan;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.spill.SpillSettings;
import dev.memwall.core.vector.Table;
import dev.memwall.join.algorithm.JoinOutput;
import dev.memwall.join.algorithm.OpenAddressingHashJoin;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.common.JoinKeyException;
import dev.memwall.join.common.JoinMemoryException;
import dev.memwall.join.common.JoinSpillException;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.common.PairChunk;
import dev.memwall.join.inspector.InspectorJoin;
import dev.memwall.join.planner.JoinPlan;
import dev.memwall.join.prefetch.PrefetchTuning;
import dev.memwall.join.prefetch.PrefetchingHashJoin;
import dev.memwall.join.reducer.BloomReducer;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * An equi-join of two Arrow tables, configured fluently and run by one of the terminal methods:
 *
 * <pre>{@code
 * long matches = Join.of(memory, orders, customers).on("custkey").count();
 * try (JoinIndex index = Join.of(memory, left, right).on(List.of("a", "b"), List.of("x", "y"))
 *     .type(JoinType.LEFT_OUTER).algorithm(JoinAlgorithm.PHASH_PLUS).index()) { ... }
 * try (Table rows = Join.of(memory, left, right).on("k").materialize(List.of("k", "v"), List.of("w"))) { ... }
 * }</pre>
 *
 * <p>The left input is the probe side, preserved by {@link JoinType#LEFT_OUTER}, {@link JoinType#SEMI}
 * and {@link JoinType#ANTI}; hash tables and inner clusters are built on the right input. Keys are
 * one or more int32, date or int64 columns, paired by position and of equal types on both sides.
 *
 * <p>Before any work each terminal method validates the keys ({@link JoinKeyException} naming the
 * columns), plans the algorithm ({@link JoinAlgorithm#AUTO} by default: the array join where the
 * right keys are unique and dense enough for one ({@link JoinAlgorithm#DENSE_KEYS}), else the
 * planner's choice from the machine profile and, when the build side's table outgrows the cache, a
 * sample of the probe keys' skew) and checks that the budget of {@code memory} can hold the algorithm's
 * working memory ({@link JoinMemoryException}); a failure later (a budget shared with other work
 * running out, a consumer throwing) propagates after every buffer is freed, and no partial result is
 * returned as if complete.
 *
 * <p>What a run did (the plan it ran, its time, what a spilling join spilled, what the inspector join
 * inspected, what the semi-join reducer kept) comes back with the run: {@link #analyze} counts and
 * returns that {@link JoinReport}, {@link #stream} returns it once the last chunk is delivered, and
 * {@link #explainAnalyze} describes it. The builder keeps nothing of a run.
 *
 * <p>Ownership: the input tables are borrowed and must stay open during a terminal call; results
 * ({@link JoinIndex}, materialized {@link Table}) belong to the caller. All working memory is charged
 * to {@code memory}'s budget and freed before the terminal method returns.
 *
 * <p>Thread safety: a {@code Join} is a mutable builder for one thread; the inputs may be shared by
 * concurrent joins, which only read them.
 */
public final class Join {
  private final EngineMemory memory;
  private final Table left;
  private final Table right;
  private List<String> leftKeys = List.of();
  private List<String> rightKeys = List.of();
  private JoinType type = JoinType.INNER;
  private JoinAlgorithm algorithm = JoinAlgorithm.AUTO;
  private RadixPlan radix;
  private boolean writeCombining;
  private int probeGroup = OpenAddressingHashJoin.DEFAULT_GROUP;
  private int chunkPairs = JoinOutput.DEFAULT_CHUNK_PAIRS;
  private MachineProfile profile;
  private int threads = 1;
  private long memoryLimit;
  private Path spillDirectory;
  private long spillQuota = Long.MAX_VALUE;
  private PrefetchingHashJoin.Mode prefetch = PrefetchingHashJoin.Mode.GROUP;
  private PrefetchTuning prefetchTuning;
  private int tupleBytes;
  private InspectorJoin.Phase inspectorPhase = InspectorJoin.Phase.AUTO;
  private boolean semiJoinReducer;
  /** The host's controls for the terminal calls, when made {@link #of(ExecutionContext, Table, Table) with one}. */
  private ExecutionContext context;

  private Join(EngineMemory memory, Table left, Table right) {
    this.memory = Objects.requireNonNull(memory, "memory");
    this.left = Objects.requireNonNull(left, "left");
    this.right = Objects.requireNonNull(right, "right");
  }

  /** A join of {@code left} (probe side) with {@code right} (build side), charging {@code memory}. */
  public static Join of(EngineMemory memory, Table left, Table right) {
    return new Join(memory, left, right);
  }

  /**
   * A join of {@code left} (probe side) with {@code right} (build side) run as the host's context
   * says: charging its memory, with its threads and machine profile, and every terminal call
   * ({@link #count}, {@link #stream}, {@link #index}, {@link #materialize}) under its controls: its
   * executor runs the parallel steps, and its token, timeout or an interrupt stops the join with
   * {@link dev.memwall.core.concurrent.QueryCancelledException} after freeing its memory.
   */
  public static Join of(ExecutionContext context, Table left, Table right) {
    Join join = new Join(context.memory(), left, right).threads(context.threads()).profile(context.machine());
    join.context = context;
    return join;
  }

  /** Joins on key columns of the same names on both sides. */
  public Join on(String... keys) {
    return on(List.of(keys), List.of(keys));
  }

  /** Joins {@code leftKeys[i]} with {@code rightKeys[i]} for every i. */
  public Join on(List<String> leftKeys, List<String> rightKeys) {
    this.leftKeys = List.copyOf(leftKeys);
    this.rightKeys = List.copyOf(rightKeys);
    return this;
  }

  public Join type(JoinType type) {
    this.type = Objects.requireNonNull(type, "type");
    return this;
  }

  /** The algorithm to run; {@link JoinAlgorithm#AUTO} (the default) lets the planner choose. */
  public Join algorithm(JoinAlgorithm algorithm) {
    this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
    return this;
  }

  /** Fixes the radix bits and passes of the clustering algorithms instead of letting the cost model choose. */
  public Join radix(RadixPlan plan) {
    this.radix = plan;
    return this;
  }

  /**
   * Whether radix-clustering scatters through software write-combining buffers (default false: with
   * the clusters on huge pages the TLB no longer limits the plain scatter, so the buffers' extra copy
   * is pure cost (JoinAlgorithmsBenchmark, docs/benchmarks/joins.md); they pay where the open clusters' pages
   * outnumber the TLB, as on the seed's machines). Keys of one int32
   * column are clustered as packed 8-byte tuples, always without the buffers.
   */
  public Join writeCombining(boolean enabled) {
    this.writeCombining = enabled;
    return this;
  }

  /** Keys per probe group of {@link JoinAlgorithm#OPEN_ADDRESSING}; 1 is the plain, one-at-a-time loop. */
  public Join probeGroup(int group) {
    this.probeGroup = group;
    return this;
  }

  /** Pairs per streamed chunk (default {@value JoinOutput#DEFAULT_CHUNK_PAIRS}). */
  public Join chunkPairs(int pairs) {
    if (pairs < 1) {
      throw new IllegalArgumentException("chunks need at least one pair, got " + pairs);
    }
    this.chunkPairs = pairs;
    return this;
  }

  /**
   * Threads for the radix algorithms ({@link JoinAlgorithm#PHASH}, {@link JoinAlgorithm#PHASH_PLUS},
   * {@link JoinAlgorithm#RADIX_JOIN}), {@link JoinAlgorithm#INSPECTOR} and
   * {@link JoinAlgorithm#ENHANCED_CACHE_PARTITIONING}: parallel partitioning (each thread a share of
   * the input) and a parallel join phase over cluster or sub-partition pairs; and for
   * {@link JoinAlgorithm#OPEN_ADDRESSING}: a parallel probe of the table built on the calling thread
   * (left inputs of at least 64K rows per thread). A streaming consumer is then called from these
   * threads, one chunk at a time. The other algorithms run on the calling thread whatever this says.
   * Default 1.
   */
  public Join threads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, got " + threads);
    }
    this.threads = threads;
    return this;
  }

  /**
   * The memory {@code M} of the spilling joins ({@link JoinAlgorithm#GRACE}, {@link JoinAlgorithm#HYBRID_HASH}):
   * their hash tables and partition pages; a build side needing more is partitioned into
   * {@code ceil(1.2 |R| / M)} partitions on disk. Default: a quarter of what {@code memory}'s budget has
   * free when the join runs (the rest covers partition pages and buffers).
   */
  public Join memoryLimit(long bytes) {
    if (bytes < 1) {
      throw new IllegalArgumentException("memory limit must be positive, got " + bytes);
    }
    this.memoryLimit = bytes;
    return this;
  }

  /**
   * Where the spilling joins create their private spill directory (removed with its files when the
   * join ends, however it ends; what a killed process leaves is swept by the next one spilling
   * there). Default: {@code java.io.tmpdir}, bounded there as {@link SpillSettings#temporaryDirectory} says.
   */
  public Join spillDirectory(Path directory) {
    this.spillDirectory = Objects.requireNonNull(directory, "directory");
    return this;
  }

  /**
   * The most bytes a spilling join's files may hold at once; more fails with
   * {@link JoinSpillException} (reason DISK_FULL) after removing them. Default: unlimited (the disk
   * decides) under a named spill directory; half the free space under the default, {@code java.io.tmpdir}.
   */
  public Join spillQuota(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("spill quota must not be negative, got " + bytes);
    }
    this.spillQuota = bytes;
    return this;
  }

  /**
   * The loops of the spilling joins' partition phase ({@link dev.memwall.join.prefetch.PrefetchingPartitioner})
   * and join phase (build and probe): {@link PrefetchingHashJoin.Mode#GROUP} (default),
   * {@link PrefetchingHashJoin.Mode#PIPELINED} or {@link PrefetchingHashJoin.Mode#PLAIN}. The partition
   * phase uses it only while its open pages exceed the profile's
   * {@linkplain dev.memwall.core.machine.MachineProfile#fastCacheBytes() fast cache}, and runs plain
   * otherwise (pages that stay cached have nothing to prefetch).
   */
  public Join prefetch(PrefetchingHashJoin.Mode mode) {
    this.prefetch = Objects.requireNonNull(mode, "mode");
    return this;
  }

  /** Overrides G and D of the prefetching loops (default: {@link PrefetchTuning#from} the profile). */
  public Join prefetch(PrefetchingHashJoin.Mode mode, PrefetchTuning tuning) {
    this.prefetch = Objects.requireNonNull(mode, "mode");
    this.prefetchTuning = Objects.requireNonNull(tuning, "tuning");
    return this;
  }

  /**
   * The width in bytes of the tuples {@link JoinAlgorithm#INSPECTOR} and
   * {@link JoinAlgorithm#ENHANCED_CACHE_PARTITIONING} move through their partitions (at least 16: key
   * and row id, the rest payload standing in for the columns an early-materializing join would
   * carry). Default: the wider input's row width (its fixed-width columns' bytes, 16 per string
   * column), at least 16. The inspector join falls back to enhanced cache
   * partitioning under {@value InspectorJoin#MIN_TUPLE_BYTES} bytes.
   */
  public Join tupleBytes(int bytes) {
    if (bytes < 16 || bytes > (1 << 16)) {
      throw new IllegalArgumentException("tuple width must be 16 to 65536 bytes, got " + bytes);
    }
    this.tupleBytes = bytes;
    return this;
  }

  /**
   * The join phase of {@link JoinAlgorithm#INSPECTOR}: {@link InspectorJoin.Phase#AUTO} (default,
   * the thesis's choice per partition from the inspection) or one forced everywhere.
   */
  public Join inspectorPhase(InspectorJoin.Phase phase) {
    this.inspectorPhase = Objects.requireNonNull(phase, "phase");
    return this;
  }

  /**
   * Whether a Bloom-filter semi-join reducer runs in front of the join ({@link BloomReducer}; default
   * false): the right side's keys go into a blocked filter (one cache line per key), left rows it
   * rejects are settled at once, and the algorithm joins only the rest. The result is the same; the
   * join is cheaper when many left rows have no partner.
   */
  public Join semiJoinReducer(boolean enabled) {
    this.semiJoinReducer = enabled;
    return this;
  }

  /**
   * The machine profile the planner reads; without one, {@link MachineProfile#current()}: the one the
   * {@value MachineProfile#PROPERTY} property names, else conservative defaults (nothing is measured).
   */
  public Join profile(MachineProfile profile) {
    this.profile = profile;
    return this;
  }

  /** Number of result pairs (rows of the result), without materializing any. */
  public long count() {
    return execution().run(null).pairs();
  }

  /**
   * Runs the join as {@link #count} does and returns what it did: the plan, the pairs, the time, and
   * the algorithm's and the semi-join reducer's own accounts ({@link JoinReport}).
   */
  public JoinReport analyze() {
    return execution().run(null);
  }

  /**
   * Streams the result in chunks of row-id pairs; each chunk is valid only during its call. Memory
   * stays bounded by one chunk however large the result.
   *
   * @return what the join did, once the last chunk has been handed over
   */
  public JoinReport stream(Consumer<PairChunk> consumer) {
    Objects.requireNonNull(consumer, "consumer");
    return execution().run(consumer);
  }

  /** The complete join index, owned by the caller. */
  public JoinIndex index() {
    return JoinIndex.collect(memory, this::stream);
  }

  /**
   * The result rows with the named columns of the left input, then of the right input, gathered
   * after the join from its row-id pairs (late materialization, {@link PairGather}). Right columns
   * are null where a left row has no partner (left outer) and for semi and anti joins.
   *
   * @throws IllegalArgumentException naming a column that is missing or appears twice in the output
   */
  public Table materialize(List<String> leftColumns, List<String> rightColumns) {
    try (PairGather gather = PairGather.of(left, leftColumns, right, rightColumns, memory.arrow())) {
      stream(gather::append);
      return gather.build();
    }
  }

  /** The plan the terminal methods would run, with the cost model's predictions. */
  public JoinPlan plan() {
    return execution().plan();
  }

  /**
   * Describes the plan the terminal methods would run, without running anything: the algorithm
   * chosen, the alternatives with the cost model's predictions, and the working memory the join
   * would ask its budget for.
   */
  public String explain() {
    return execution().explain();
  }

  /**
   * Plans, runs the join counting its result, and describes the choice with the predicted and the
   * measured time and what the algorithm reported ({@link #analyze}, {@link JoinReport#describe}).
   */
  public String explainAnalyze() {
    return analyze().describe();
  }

  /** A run of the options as they stand now. */
  private JoinExecution execution() {
    return new JoinExecution(memory, left, right, new JoinOptions(leftKeys, rightKeys, type, algorithm, radix,
        writeCombining, probeGroup, chunkPairs, profile, threads, memoryLimit, spillDirectory, spillQuota, prefetch,
        prefetchTuning, tupleBytes, inspectorPhase, semiJoinReducer), context);
  }
}
