package dev.memwall.core.plan;

import dev.memwall.core.concurrent.CancellationToken;
import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.AggregateLayout;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
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
 *       next checkpoint (every operator checks at least once per morsel or block) with a
 *       {@link dev.memwall.core.concurrent.QueryCancelledException}, after its memory is freed.
 *   <li>{@link #aggregateLayout()}: DSM or NSM accumulators for grouped aggregation.
 * </ul>
 *
 * <p>Immutable and thread safe; one context may run many plans, also at once.
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
    this.memory = b.memory;
    this.threads = b.threads;
    this.aggregateLayout = b.aggregateLayout;
    this.executor = b.executor;
    this.machine = b.machine;
    this.cancellation = b.cancellation;
    this.timeout = b.timeout;
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
        .machine(machine).cancellation(cancellation);
    b.timeout = timeout;
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

  /**
   * Runs {@code work} (an operator that runs outside a {@link Plan}, such as a join's build) under this
   * context's controls: its parallel tasks go to the executor, its checkpoints answer to the token, the
   * timeout (counted from now) and an interrupt of the calling thread. Inside an execution already
   * running, it joins that one's controls.
   *
   * @throws dev.memwall.core.concurrent.QueryCancelledException as {@link Plan#execute} does
   */
  public <T> T run(Supplier<T> work) {
    return ExecutionControl.run(executor, cancellation, timeout == null ? 0 : timeout.toNanos(), work);
  }

  @Override
  public String toString() {
    return "ExecutionContext[memory=" + memory.budget().name() + ", threads=" + threads + ", layout="
        + aggregateLayout + (executor != null ? ", host executor" : "") + (timeout != null ? ", timeout=" + timeout : "")
        + "]";
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

    public ExecutionContext build() {
      return new ExecutionContext(this);
    }
  }
}
