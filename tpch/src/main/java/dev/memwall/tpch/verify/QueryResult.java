package dev.memwall.tpch.verify;

import java.util.List;

/**
 * The rows a SQL query returned, as JDBC objects (BigDecimal for decimals, LocalDate or
 * java.sql.Date for dates, String, Integer/Long, Double), and how long it took to execute and
 * fetch.
 *
 * @param columns column labels in SELECT-list order
 * @param rows the rows in the order returned
 * @param nanos wall-clock time of execution plus fetching all rows
 */
public record QueryResult(List<String> columns, List<List<Object>> rows, long nanos) {
  public QueryResult {
    columns = List.copyOf(columns);
    rows = List.copyOf(rows);
  }
}
