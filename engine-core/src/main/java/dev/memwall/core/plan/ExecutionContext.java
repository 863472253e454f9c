package dev.memwall.core.plan;

import dev.memwall.core.concurrent.CancellationToken;
import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.AggregateLayout;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.spill.SpillSettings;
import dev.memwall.core.spill.WorkingMemory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What a plan runs with: the memory every operator allocates from, how many tasks may run at once and
 * on whose threads, the machine the cost models plan for, and how the host stops it.
 *
 * <ul>
 *   <li>{@link #memory()}: owner of every buffer the plan allocates; result tables are allocated from
 *       it too and are the caller's to close.
 *   <li>{@link #threads()}: how many tasks a parallel step splits into (at least 1). The calling thread
 *       runs one of them.
 *   <li>{@link #executor()}: where the others run. Empty: memwall starts a platform daemon thread per
 *       task for the step's duration. Given: memwall starts no thread of its own; a task the executor
 *       has not started by the time the calling thread finished its own is run by the calling thread,
 *       so a saturated (or same-thread) executor slows a query down but cannot deadlock it.
 *   <li>{@link #machine()}: the profile the cost models read (join algorithms, radix bits, node widths);
 *       {@link MachineProfile#current()} unless given. Never measured implicitly.
 *   <li>{@link #cancellation()} and {@link #timeout()}: a cancelled token, a passed deadline (counted
 *       from the start of each execution) or an interrupt of the calling thread stops the query at its
 *       next checkpoint (every 1,024 rows of a pipeline, every block of the other loops) with a
 *       {@link dev.memwall.core.concurrent.QueryCancelledException}, after its memory is freed.
 *   <li>{@link #aggregateLayout()}: DSM or NSM accumulators for grouped aggregation.
 *   <li>{@link #memoryLimit()}: the most working memory one execution's operators may hold at once
 *       (hash tables and accumulators of aggregations, rows buffered for a sort), inside the memory's
 *       budget, which still bounds everything. The tables a plan reads and returns do not count
 *       against it; they are the budget's alone. Empty (the default): the budget alone bounds the
 *       operators too.
 *   <li>{@link #spillSettings()}: memory that degrades, not fails. When an aggregation's or a sort's
 *       working memory is refused (by the limit or the budget), it spills: partial groups are
 *       partitioned to disk and aggregated partition by partition, sorted runs are written and merged.
 *       On by default, into a fresh directory under {@code java.io.tmpdir} (bounded there to half its
 *       free space, see {@link SpillSettings#temporaryDirectory}) that each operator creates
 *       only when it first spills and removes when it ends, however it ends (what a killed process
 *       leaves is swept by the next one that spills there, see {@link dev.memwall.core.spill.SpillDirectory});
 *       {@link Builder#spillDirectory} names another root, {@link Builder#spilling spilling(false)}
 *       turns it off, and {@link Builder#spillQuota} bounds the disk an operator may use. Where spilling
 *       is off or cannot help (too little memory even for one chunk), the
 *       {@link dev.memwall.core.memory.BudgetExceededException} names the operator and its stage.
 * </ul>
 *
 * <p>Immutable and thread safe; one context may run many plans, also at once (each execution has its
 * own working-memory limit).
 */
public final class ExecutionContext {
  /**
   * COLUMNS: neither layout measured consistently faster on TPC-H Q1 and its many-group variants
   * (the aggregation benchmarks), and columns need no padding.
   */
  public static final AggregateLayout DEFAULT_AGGREGATE_LAYOUT = AggregateLayout.COLUMNS;

  private final EngineMemory memory;
  private final int threads;
  private final AggregateLayout aggregateLayout;
  private final Executor executor;
  private final MachineProfile machine;
  private final CancellationToken cancellation;
  private final Duration timeout;
  /** The working-memory limit of one execution; {@link Long#MAX_VALUE}: none of its own. */
  private final long memoryLimit;
  private final SpillSettings spill;
  private final Consumer<SpillReport> spillReports;

  /** The working memory of the execution running on this thread, and whose memory it is a child of. */
  private record QueryMemory(EngineMemory parent, EngineMemory working) {}

  private static final ScopedValue<QueryMemory> QUERY_MEMORY = ScopedValue.newInstance();

  private ExecutionContext(Builder b) {
    if (b.memory == null) {
      throw new IllegalArgumentException("an execution context needs engine memory");
    }
    if (b.threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, got " + b.threads);
    }
    if (b.aggregateLayout == null) {
      throw new IllegalArgumentException("an execution context needs an aggregate layout");
    }
    if (b.timeout != null && (b.timeout.isNegative() || b.timeout.isZero())) {
      throw new IllegalArgumentException("a timeout must be positive, got " + b.timeout);
    }
    if (b.memoryLimit < 1) {
      throw new IllegalArgumentException("a memory limit must be positive, got " + b.memoryLimit);
    }
    this.memory = b.memory;
    this.threads = b.threads;
    this.aggregateLayout = b.aggregateLayout;
    this.executor = b.executor;
    this.machine = b.machine;
    this.cancellation = b.cancellation;
    this.timeout = b.timeout;
    this.memoryLimit = b.memoryLimit;
    this.spill = !b.spilling ? SpillSettings.OFF
        : b.spillRoot != null ? new SpillSettings(b.spillRoot, b.spillQuota)
        : b.spillQuota == Long.MAX_VALUE ? SpillSettings.temporaryDirectory()
        : new SpillSettings(SpillSettings.temporaryDirectory().root(), b.spillQuota);
    this.spillReports = b.spillReports;
  }

  /** A context over {@code memory} with {@code threads} tasks per parallel step and every other setting at its default. */
  public ExecutionContext(EngineMemory memory, int threads) {
    this(builder(memory).threads(threads));
  }

  /** As {@link #ExecutionContext(EngineMemory, int)}, with the aggregate layout chosen. */
  public ExecutionContext(EngineMemory memory, int threads, AggregateLayout aggregateLayout) {
    this(builder(memory).threads(threads).aggregateLayout(aggregateLayout));
  }

  /** A single-threaded context. */
  public static ExecutionContext singleThreaded(EngineMemory memory) {
    return new ExecutionContext(memory, 1);
  }

  /** A builder starting from one thread, no executor, the current machine profile, no cancellation or timeout. */
  public static Builder builder(EngineMemory memory) {
    return new Builder(memory);
  }

  /** A builder holding this context's settings, to change some of them. */
  public Builder toBuilder() {
    Builder b = new Builder(memory).threads(threads).aggregateLayout(aggregateLayout).executor(executor)
        .machine(machine).cancellation(cancellation).spillReports(spillReports);
    b.timeout = timeout;
    b.memoryLimit = memoryLimit;
    b.spilling = spill.enabled();
    b.spillRoot = spill.root();
    b.spillQuota = spill.quotaBytes();
    return b;
  }

  /** This context with another aggregate layout. */
  public ExecutionContext withAggregateLayout(AggregateLayout layout) {
    return toBuilder().aggregateLayout(layout).build();
  }

  public EngineMemory memory() {
    return memory;
  }

  public int threads() {
    return threads;
  }

  public AggregateLayout aggregateLayout() {
    return aggregateLayout;
  }

  /** The host's executor for a parallel step's tasks; empty: memwall's own short-lived threads. */
  public Optional<Executor> executor() {
    return Optional.ofNullable(executor);
  }

  /** The machine profile the cost models read: the one given, else {@link MachineProfile#current()}. */
  public MachineProfile machine() {
    return machine != null ? machine : MachineProfile.current();
  }

  /** The host's token; empty: only an interrupt or the timeout stops the query. */
  public Optional<CancellationToken> cancellation() {
    return Optional.ofNullable(cancellation);
  }

  /** How long one execution may run; empty: no limit. */
  public Optional<Duration> timeout() {
    return Optional.ofNullable(timeout);
  }

  /** The working-memory limit of one execution (see the class comment); empty: the budget alone. */
  public OptionalLong memoryLimit() {
    return memoryLimit == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(memoryLimit);
  }

  /** Where and how much operators spill; {@link SpillSettings#OFF} when spilling is off. */
  public SpillSettings spillSettings() {
    return spill;
  }

  /** Whether operators spill when their working memory is refused. */
  public boolean spilling() {
    return spill.enabled();
  }

  /** Reports of the spilling operators as they finish, where the host asked for them. */
  public Optional<Consumer<SpillReport>> spillReports() {
    return Optional.ofNullable(spillReports);
  }

  /**
   * Working memory for {@code operator} (closed by the operator when it ends): inside an execution
   * with a {@linkplain #memoryLimit() limit}, a child of that execution's working memory, so that all
   * its operators together stay within the limit; outside one, a child held to the limit alone; without
   * a limit, the context's memory itself (or, where {@linkplain Builder#spillReports reports} are asked
   * for, a child of it that counts the operator's peak).
   */
  public WorkingMemory workingMemory(String operator) {
    QueryMemory query = QUERY_MEMORY.isBound() ? QUERY_MEMORY.get() : null;
    if (query != null && query.parent() == memory) {
      return WorkingMemory.owned(query.working().child(operator, Long.MAX_VALUE));
    }
    if (memoryLimit != Long.MAX_VALUE || spillReports != null) {
      return WorkingMemory.owned(memory.child(memory.budget().name() + " / " + operator, memoryLimit));
    }
    return WorkingMemory.shared(memory);
  }

  /**
   * Runs {@code work} (an operator that runs outside a {@link Plan}, such as a join's build) under this
   * context's controls: its parallel tasks go to the executor, its checkpoints answer to the token, the
   * timeout (counted from now) and an interrupt of the calling thread; with a {@linkplain #memoryLimit()
   * memory limit}, its operators' working memory is held to it together. Inside an execution already
   * running, it joins that one's controls and working memory.
   *
   * @throws dev.memwall.core.concurrent.QueryCancelledException as {@link Plan#execute} does
   */
  public <T> T run(Supplier<T> work) {
    long timeoutNanos = timeout == null ? 0 : timeout.toNanos();
    boolean nested = QUERY_MEMORY.isBound() && QUERY_MEMORY.get().parent() == memory;
    if (memoryLimit == Long.MAX_VALUE || nested) {
      return ExecutionControl.run(executor, cancellation, timeoutNanos, work);
    }
    EngineMemory working = memory.child(memory.budget().name() + " (working memory)", memoryLimit);
    T result;
    try {
      result = ScopedValue.where(QUERY_MEMORY, new QueryMemory(memory, working))
          .call(() -> ExecutionControl.run(executor, cancellation, timeoutNanos, work));
    } catch (RuntimeException | Error e) {
      try {
        working.close();
      } catch (RuntimeException leak) {
        e.addSuppressed(leak);
      }
      throw e;
    }
    working.close(); // every operator freed its working memory: a leak here is a bug, and says so
    return result;
  }

  @Override
  public String toString() {
    return "ExecutionContext[memory=" + memory.budget().name() + ", threads=" + threads + ", layout="
        + aggregateLayout + (executor != null ? ", host executor" : "") + (timeout != null ? ", timeout=" + timeout : "")
        + (memoryLimit != Long.MAX_VALUE ? ", memoryLimit=" + memoryLimit : "")
        + (spill.enabled() ? ", spill to " + spill.root() : ", no spilling") + "]";
  }

  /** Settings of a context; not thread safe. */
  public static final class Builder {
    private final EngineMemory memory;
    private int threads = 1;
    private AggregateLayout aggregateLayout = DEFAULT_AGGREGATE_LAYOUT;
    private Executor executor;
    private MachineProfile machine;
    private CancellationToken cancellation;
    private Duration timeout;
    private long memoryLimit = Long.MAX_VALUE;
    private boolean spilling = true;
    private Path spillRoot;
    private long spillQuota = Long.MAX_VALUE;
    private Consumer<SpillReport> spillReports;

    private Builder(EngineMemory memory) {
      this.memory = memory;
    }

    /** Tasks per parallel step, at least 1. */
    public Builder threads(int threads) {
      this.threads = threads;
      return this;
    }

    public Builder aggregateLayout(AggregateLayout layout) {
      this.aggregateLayout = layout;
      return this;
    }

    /** Runs a parallel step's other tasks on {@code executor} (null: memwall's own threads). */
    public Builder executor(Executor executor) {
      this.executor = executor;
      return this;
    }

    /** The profile the cost models read (null: {@link MachineProfile#current()}). */
    public Builder machine(MachineProfile machine) {
      this.machine = machine;
      return this;
    }

    /** A token the host cancels to stop the query (null: none). */
    public Builder cancellation(CancellationToken token) {
      this.cancellation = token;
      return this;
    }

    /** Stops each execution that runs longer than {@code timeout}; must be positive. */
    public Builder timeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * The most working memory one execution's operators may hold at once (hash tables, accumulators,
     * rows buffered for a sort), inside the memory's budget; more makes them spill, or fail naming
     * themselves where spilling is off. Must be positive; {@link Long#MAX_VALUE}: no limit of its own
     * (the default).
     */
    public Builder memoryLimit(long bytes) {
      this.memoryLimit = bytes;
      return this;
    }

    /**
     * The directory under which spilling operators create their private spill directories (each
     * removed when its operator ends); null turns spilling off. Default: {@code java.io.tmpdir}, with
     * the quota of {@link SpillSettings#temporaryDirectory} unless {@link #spillQuota} names one.
     */
    public Builder spillDirectory(Path root) {
      this.spillRoot = root;
      this.spilling = root != null;
      return this;
    }

    /** Whether operators spill when their working memory is refused (default true). */
    public Builder spilling(boolean enabled) {
      this.spilling = enabled;
      return this;
    }

    /**
     * The most bytes one operator's spill files may hold at once; more fails with a
     * {@link dev.memwall.core.spill.SpillException} (reason DISK_FULL) after removing them. Default:
     * unlimited (the disk decides) under a named spill directory; half the free space under the
     * default, {@code java.io.tmpdir}.
     */
    public Builder spillQuota(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("spill quota must not be negative, got " + bytes);
      }
      this.spillQuota = bytes;
      return this;
    }

    /**
     * Receives a {@link SpillReport} from each spilling operator (aggregation, sort) as it finishes,
     * on the thread that runs the plan (null: none). Asking for reports counts each operator's working
     * memory apart, which its report then gives.
     */
    public Builder spillReports(Consumer<SpillReport> reports) {
      this.spillReports = reports;
      return this;
    }

    public ExecutionContext build() {
      return new ExecutionContext(this);
    }
  }
}
