package dev.memwall.core.operator;

/**
 * One ORDER BY term: a column of the sorted table, ascending or descending, with its nulls after
 * every value (the default, DuckDB's in both directions) or, {@link #withNullsFirst}, before.
 */
public record SortKey(String column, boolean descending, boolean nullsFirst) {
  /** A key whose nulls sort last. */
  public SortKey(String column, boolean descending) {
    this(column, descending, false);
  }

  public static SortKey asc(String column) {
    return new SortKey(column, false);
  }

  public static SortKey desc(String column) {
    return new SortKey(column, true);
  }

  /** This key with its nulls before every value, in either direction (SQL's {@code NULLS FIRST}). */
  public SortKey withNullsFirst() {
    return new SortKey(column, descending, true);
  }
}
