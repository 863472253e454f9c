package dev.memwall.join.common;

/**
 * Thrown before any work when the join keys cannot be joined: a missing column, a key type the
 * joins do not support (they join int32, date and int64 columns), a different number of key
 * columns on the two sides, or key columns of different types. The message names the columns.
 */
public final class JoinKeyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public JoinKeyException(String message) {
    super(message);
  }
}
