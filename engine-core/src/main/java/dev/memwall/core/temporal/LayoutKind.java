package dev.memwall.core.temporal;

/**
 * The three temporal layouts of Jouini and Jomier (DaMoN 2008), each answering the same queries
 * with the same results; they differ in what a query has to read.
 */
public enum LayoutKind {
  /** One row per version holding the surrogate, the time and every attribute: unchanged values repeat. */
  NSM,
  /**
   * One sub-relation per attribute of (surrogate, time, value) triples, a triple only where the
   * attribute's value changes; a query over several attributes joins them on surrogate and time.
   */
  TDSM,
  /**
   * One sub-page per surrogate: a header (surrogate, creation time, per attribute its number of
   * distinct values and its zone's offset) and one zone per attribute holding the times of its
   * changes and each of its values once; validity intervals are implicit.
   */
  PSP;

  /**
   * Segments per entity a {@link TemporalStore} of this layout keeps: TDSM one per attribute
   * sub-relation, the others one.
   */
  public int parts(int attributes) {
    return this == TDSM ? attributes : 1;
  }
}
