package dev.memwall.core.concurrent;

/**
 * A query stopped before it finished because its host asked it to: the one exception a cancelled,
 * interrupted or timed-out query throws, after it has freed the memory and files it held.
 */
public final class QueryCancelledException extends RuntimeException {
  /** Why the query stopped. */
  public enum Reason {
    /** Its {@link CancellationToken} was cancelled. */
    CANCELLED,
    /** Its deadline passed. */
    DEADLINE,
    /** The thread that runs it was interrupted (as {@code Future.cancel(true)} does). */
    INTERRUPTED
  }

  private final Reason reason;

  public QueryCancelledException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
