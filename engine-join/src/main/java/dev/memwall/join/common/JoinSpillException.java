package dev.memwall.join.common;

/**
 * Thrown when a join that spills to disk ({@link JoinAlgorithm#GRACE}, {@link JoinAlgorithm#HYBRID_HASH})
 * cannot go on: the spill directory's disk is full (or the join's spill quota is used up), the
 * thread was interrupted, or the file system failed. The message names the directory (or the spill
 * file and the system's reason) and how much had been written. Every spill file the join wrote has been removed by the time this propagates.
 */
public final class JoinSpillException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why the join stopped. */
  public enum Reason {
    /** The disk (or the join's spill quota) has no room for the next page. */
    DISK_FULL,
    /** The joining thread was interrupted; its interrupt status is set again. */
    INTERRUPTED,
    /** Any other I/O failure of the spill files. */
    IO
  }

  private final Reason reason;

  public JoinSpillException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
