package dev.memwall.core.concurrent;

/**
 * A host's handle to stop the queries it runs: {@link #cancel} makes every query running with this
 * token (through {@code ExecutionContext.cancellation}) stop at its next checkpoint, free its memory
 * and throw {@link QueryCancelledException}. One token may serve several queries; a cancelled token
 * stays cancelled.
 *
 * <p>Thread safety: any thread may cancel or ask at any time.
 */
public final class CancellationToken {
  private volatile boolean cancelled;

  /** Asks every query running with this token to stop. Idempotent. */
  public void cancel() {
    cancelled = true;
  }

  public boolean isCancelled() {
    return cancelled;
  }

  @Override
  public String toString() {
    return cancelled ? "CancellationToken[cancelled]" : "CancellationToken[live]";
  }
}
