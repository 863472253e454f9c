package dev.memwall.join.algorithm;

/**
 * A join's build side, indexed for lookups by key: what a probe of one key finds is an <em>entry</em>,
 * a long that names the key's rows ({@link OpenAddressingTable#firstRow}, {@link
 * OpenAddressingTable#secondRow}, then {@link #nextRow}), or 0 when no build row has the key. Two
 * kinds, which differ in what a lookup is given: the {@link OpenAddressingTable} takes the key's
 * hash and fits any key; the {@link DenseKeyTable} takes the key itself and fits only unique
 * integral keys whose range it can hold an array of.
 *
 * <p>Ownership: the table owns its memory until {@link #close}. Thread safety: once built, any number
 * of threads may look up concurrently.
 */
public sealed interface BuildTable extends AutoCloseable permits OpenAddressingTable, DenseKeyTable {
  /**
   * Whether every entry a lookup can find has one row ({@link OpenAddressingTable#secondRow} is -1):
   * then a probe row has at most one partner, whose key must still be confirmed where the table's
   * keys are not exact.
   */
  boolean oneRowPerEntry();

  /** The row after {@code row} (not the first) in its entry's chain, or -1 at the end. */
  int nextRow(int row);

  /** The bytes the table holds. */
  long bytes();

  /** What the table is, for plan descriptions. */
  String describe();

  /** Frees the table's memory; idempotent. */
  @Override
  void close();
}
