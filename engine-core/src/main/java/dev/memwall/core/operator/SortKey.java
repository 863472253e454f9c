package dev.memwall.core.operator;

/**
 * One ORDER BY term: a column of the sorted table, ascending or descending. Nulls sort last in
 * both directions (DuckDB's default).
 */
public record SortKey(String column, boolean descending) {
  public static SortKey asc(String column) {
    return new SortKey(column, false);
  }

  public static SortKey desc(String column) {
    return new SortKey(column, true);
  }
}
