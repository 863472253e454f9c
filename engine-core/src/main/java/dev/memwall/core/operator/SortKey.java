package dev.memwall.core.operator;

/**
 * One ORDER BY term: a column of the sorted table, ascending or descending, with its nulls after
 * every value (the default, DuckDB's in both directions) or before every value.
 */
public record SortKey(String column, boolean descending, boolean nullsFirst) {
  /** A term with its nulls last. */
  public SortKey(String column, boolean descending) {
    this(column, descending, false);
  }

  public static SortKey asc(String column) {
    return new SortKey(column, false);
  }

  public static SortKey desc(String column) {
    return new SortKey(column, true);
  }

  /** This term with its nulls before every value (SQL's NULLS FIRST). */
  public SortKey withNullsFirst() {
    return new SortKey(column, descending, true);
  }
}
