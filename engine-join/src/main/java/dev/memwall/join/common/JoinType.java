package dev.memwall.join.common;

/**
 * The join types, always seen from the left input (the probe side; the hash table or the inner
 * clusters are built on the right input).
 *
 * <p>SQL null semantics: a key with a null in any key column equals nothing, not even another null
 * key. A left row with a null key therefore never appears in an {@link #INNER} or {@link #SEMI}
 * result and always appears, unmatched, in a {@link #LEFT_OUTER} and an {@link #ANTI} result
 * ({@code NOT EXISTS} semantics).
 */
public enum JoinType {
  /** Every pair (left row, right row) with equal keys. */
  INNER,
  /** The inner pairs, plus (left row, {@link JoinIndex#NO_ROW}) for each left row without a match. */
  LEFT_OUTER,
  /** (left row, {@link JoinIndex#NO_ROW}) once for each left row with at least one match. */
  SEMI,
  /** (left row, {@link JoinIndex#NO_ROW}) for each left row without any match. */
  ANTI;

  /** Whether left rows without a match are reported. */
  public boolean reportsUnmatched() {
    return this == LEFT_OUTER || this == ANTI;
  }
}
