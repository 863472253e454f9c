package dev.memwall.join.keys;

/** How a row's key becomes its 64-bit join hash. */
public enum KeyShape {
  /** One int32 (or date) column: hash = mix64(key). Exact. */
  INT32,
  /** One int64 column: hash = mix64(key). Exact. */
  INT64,
  /** Two int32 (or date) columns packed into one long, then mixed. Exact. */
  TWO_INT32,
  /**
   * Any other composite key: the columns' values folded by {@link dev.memwall.core.hash.Hashing#combine}.
   * Not exact: rows with equal hashes must be confirmed on the key columns.
   */
  WIDE;

  /** Whether equal hashes imply equal keys. */
  public boolean exact() {
    return this != WIDE;
  }
}
