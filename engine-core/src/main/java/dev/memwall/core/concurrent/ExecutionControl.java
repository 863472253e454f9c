package dev.memwall.core.concurrent;

import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * What a running query answers to: the host's executor for its parallel tasks, its cancellation
 * token, its deadline, and the thread that started it (whose interrupt stops it). A query's entry
 * point {@linkplain #run binds} one for the query's duration; {@link Workers} carries it onto every
 * task thread, and operators call {@link #checkpoint()} at least once per morsel or block, so that
 * no operator needs a parameter for it.
 *
 * <p>The first task of a query that fails {@linkplain #abort aborts} the others too: their next
 * checkpoint throws, so a failed query stops as promptly as a cancelled one.
 *
 * <p>Thread safety: a control is shared by all tasks of its query; every method may be called from
 * any of them.
 */
public final class ExecutionControl {
  private static final ScopedValue<ExecutionControl> CURRENT = ScopedValue.newInstance();
  /** Unbound code (a kernel called outside any query) checks nothing. */
  private static final ExecutionControl NONE = new ExecutionControl(null, null, Long.MAX_VALUE, null);

  private final Executor executor;
  private final CancellationToken token;
  private final long deadlineNanos;
  private final Thread owner;
  private volatile Throwable aborted;

  private ExecutionControl(Executor executor, CancellationToken token, long deadlineNanos, Thread owner) {
    this.executor = executor;
    this.token = token;
    this.deadlineNanos = deadlineNanos;
    this.owner = owner;
  }

  /**
   * Runs {@code query} under a control of these settings, started now on the calling thread; inside a
   * query already running (a plan executed by a relation), runs it under that query's control.
   *
   * @param executor where parallel tasks run (null: memwall's own threads)
   * @param token stops the query when cancelled (null: none)
   * @param timeoutNanos the longest the query may run (at most 0: no limit)
   */
  public static <T> T run(Executor executor, CancellationToken token, long timeoutNanos, Supplier<T> query) {
    if (CURRENT.isBound()) {
      return query.get();
    }
    long deadline = timeoutNanos > 0 ? System.nanoTime() + timeoutNanos : Long.MAX_VALUE;
    ExecutionControl control = new ExecutionControl(executor, token, deadline, Thread.currentThread());
    control.check(); // this control's (the static checkpoint() would ask the unbound one, which checks nothing)
    return ScopedValue.where(CURRENT, control).call(query::get);
  }

  /** The control of the query running on this thread, or one that never stops anything. */
  public static ExecutionControl current() {
    return CURRENT.orElse(NONE);
  }

  /**
   * Throws {@link QueryCancelledException} if the query running on this thread was cancelled, ran
   * past its deadline or had its starting thread interrupted (which also cancels its other tasks), or
   * if another of its tasks failed. Cheap enough for once per morsel.
   */
  public static void checkpoint() {
    current().check();
  }

  /** {@link #checkpoint()} for this control. */
  public void check() {
    if (this == NONE) {
      return;
    }
    Throwable failure = aborted;
    if (failure != null) {
      throw failure instanceof QueryCancelledException cancelled ? cancelled
          : new QueryCancelledException(QueryCancelledException.Reason.CANCELLED,
              "query stopped: another of its tasks failed (" + failure + ")");
    }
    if (token != null && token.isCancelled()) {
      throw abort(new QueryCancelledException(QueryCancelledException.Reason.CANCELLED, "query cancelled"));
    }
    if (deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos > 0) {
      throw abort(new QueryCancelledException(QueryCancelledException.Reason.DEADLINE, "query ran past its deadline"));
    }
    if (Thread.currentThread() == owner && owner.isInterrupted()) {
      throw abort(new QueryCancelledException(QueryCancelledException.Reason.INTERRUPTED,
          "query interrupted (thread " + owner.getName() + ")"));
    }
  }

  /**
   * Stops the query's other tasks at their next checkpoint because of {@code failure}; the first
   * failure is kept. Returns {@code failure}.
   */
  public <X extends Throwable> X abort(X failure) {
    if (this != NONE && aborted == null) {
      synchronized (this) {
        if (aborted == null) {
          aborted = failure;
        }
      }
    }
    return failure;
  }

  /** The host's executor, if one was given. */
  Optional<Executor> executor() {
    return Optional.ofNullable(executor);
  }

  /** Runs {@code task} on this thread with this control bound, as on the query's own thread. */
  void runBound(Runnable task) {
    if (this == NONE) {
      task.run();
    } else {
      ScopedValue.where(CURRENT, this).run(task);
    }
  }
}
