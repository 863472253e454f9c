package dev.memwall.core.spill;

/**
 * Thrown when an operator that spills to disk cannot go on: the disk of its spill directory is full
 * (or the query's spill quota is used up), its thread was interrupted, or the file system failed (a
 * spill root that is read-only or missing, for example). The message names the operator, the
 * directory (or, when a spill file failed, the file and the system's reason, such as "No space left
 * on device") and how much had been written. Every spill file the operator wrote has been removed by
 * the time this leaves the query.
 */
public final class SpillException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why the operator stopped. */
  public enum Reason {
    /** The disk (or the spill quota) has no room for the next write. */
    DISK_FULL,
    /** The spilling thread was interrupted; its interrupt status is set again. */
    INTERRUPTED,
    /** Any other I/O failure: the directory cannot be created, a write or read failed. */
    IO
  }

  private final Reason reason;
  private final String operator;

  /**
   * @param operator the operator that was spilling ("hash aggregation", "sort", ...), named at the
   *     start of the message
   */
  public SpillException(Reason reason, String operator, String message, Throwable cause) {
    super(operator + ": " + message, cause);
    this.reason = reason;
    this.operator = operator;
  }

  /**
   * The spill failure {@code failure} is or carries as its cause (a disk full or refused as the spill
   * directory reported it), else a new one of reason {@link Reason#IO} naming {@code operator}:
   * "{@code what} failed: " and the failure.
   */
  public static SpillException of(Exception failure, String operator, String what) {
    if (failure instanceof SpillException spill) {
      return spill;
    }
    if (failure.getCause() instanceof SpillException spill) {
      return spill;
    }
    return new SpillException(Reason.IO, operator, what + " failed: " + failure, failure);
  }

  public Reason reason() {
    return reason;
  }

  /** The operator that was spilling. */
  public String operator() {
    return operator;
  }
}
