package dev.memwall.tpch.verify;

import java.util.List;

/**
 * The validation output of one TPC-H query: column names, rows as the text of each value (blanks
 * stripped) and the comparison rule of each column.
 *
 * @param query the query number, 1 to 22
 * @param columns the column headings as printed in the answer file
 * @param precisions one rule per column
 * @param rows the expected rows in order
 */
public record ExpectedResult(int query, List<String> columns, List<ColumnPrecision> precisions,
    List<List<String>> rows) {
  public ExpectedResult {
    columns = List.copyOf(columns);
    precisions = List.copyOf(precisions);
    rows = rows.stream().map(List::copyOf).toList();
    if (columns.size() != precisions.size()) {
      throw new IllegalArgumentException("query " + query + " has " + columns.size() + " columns but "
          + precisions.size() + " precision tokens");
    }
    for (List<String> row : rows) {
      if (row.size() != columns.size()) {
        throw new IllegalArgumentException("query " + query + ": row " + row + " has " + row.size()
            + " values, the header " + columns.size());
      }
    }
  }
}
