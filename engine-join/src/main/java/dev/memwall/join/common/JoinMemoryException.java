package dev.memwall.join.common;

import dev.memwall.core.memory.BudgetExceededException;

/**
 * Thrown before any work when the caller's memory budget cannot hold what the chosen algorithm
 * needs (its working memory, estimated from the input sizes, is checked against the budget up
 * front). The message names the algorithm and the bytes it needs; the cause is the budget's refusal.
 */
public final class JoinMemoryException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final long requiredBytes;

  public JoinMemoryException(String message, long requiredBytes, BudgetExceededException cause) {
    super(message, cause);
    this.requiredBytes = requiredBytes;
  }

  /** The working memory the join asked for. */
  public long requiredBytes() {
    return requiredBytes;
  }
}
