package dev.memwall.core.plan;

import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.vector.Table;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The rounds of a {@linkplain Plan#stream streamed} result, each run under the context's controls:
 * nothing runs before the first round is asked for, every round answers to the context's executor,
 * token and the interrupt of the thread that asks, and the timeout counts from the first round.
 * Closing frees the rounds' state, then {@code resources}. For one consumer at a time.
 */
final class ControlledRounds implements TableReader.Tables {
  private final ExecutionContext context;
  private final Supplier<TableReader.Tables> start;
  private TableReader.Tables rounds;
  private AutoCloseable resources;
  private long deadlineNanos;

  /**
   * @param start runs what precedes the first round and returns the rounds (called once, under control)
   * @param resources closed after the rounds (null: nothing)
   */
  ControlledRounds(ExecutionContext context, Supplier<TableReader.Tables> start, AutoCloseable resources) {
    this.context = context;
    this.start = start;
    this.resources = resources;
  }

  @Override
  public Table next() {
    long timeout = context.timeout().map(Duration::toNanos).orElse(0L);
    long remaining = 0;
    if (timeout > 0) {
      if (deadlineNanos == 0) {
        deadlineNanos = System.nanoTime() + timeout;
      }
      remaining = deadlineNanos - System.nanoTime();
      if (remaining <= 0) {
        throw new QueryCancelledException(QueryCancelledException.Reason.DEADLINE, "query ran past its deadline");
      }
    }
    return ExecutionControl.run(context.executor().orElse(null), context.cancellation().orElse(null), remaining, () -> {
      if (rounds == null) {
        rounds = start.get();
      }
      return rounds.next();
    });
  }

  @Override
  public void close() {
    try {
      if (rounds != null) {
        rounds.close();
        rounds = null;
      }
    } finally {
      if (resources != null) {
        AutoCloseable closing = resources;
        resources = null;
        try {
          closing.close();
        } catch (Exception e) {
          throw e instanceof RuntimeException r ? r : new IllegalStateException("closing the plan's resources failed", e);
        }
      }
    }
  }
}
