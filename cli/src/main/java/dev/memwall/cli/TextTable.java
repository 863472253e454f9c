package dev.memwall.cli;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A result table as aligned text for a terminal: a header of the column names, a rule, then at most
 * a given number of rows (numbers right-aligned, everything else left-aligned, nulls as
 * {@code NULL}), and a line saying how many rows there are and how many were left out.
 *
 * <p>Only the rows printed are read, so a large result costs its row count and no more. Ownership:
 * the table stays the caller's. Thread safety: no state.
 */
final class TextTable {
  private TextTable() {}

  /** Prints {@code table}'s first {@code maxRows} rows (at least 0) to {@code out}. */
  static void print(Table table, int maxRows, PrintWriter out) {
    List<String> names = table.schema().getFields().stream().map(field -> field.getName()).toList();
    int columns = names.size();
    List<String[]> rows = new ArrayList<>();
    boolean[] numeric = new boolean[columns];
    for (Batch batch : table.batches()) {
      for (int row = 0; row < batch.rowCount() && rows.size() < maxRows; row++) {
        String[] cells = new String[columns];
        for (int c = 0; c < columns; c++) {
          Object value = batch.columns().get(c).getObject(row);
          numeric[c] |= value instanceof Number;
          cells[c] = value == null ? "NULL" : value.toString();
        }
        rows.add(cells);
      }
      if (rows.size() >= maxRows) {
        break;
      }
    }
    int[] widths = new int[columns];
    for (int c = 0; c < columns; c++) {
      widths[c] = names.get(c).length();
      for (String[] cells : rows) {
        widths[c] = Math.max(widths[c], cells[c].length());
      }
    }
    out.println(line(names.toArray(String[]::new), widths, new boolean[columns]));
    StringBuilder rule = new StringBuilder();
    for (int c = 0; c < columns; c++) {
      rule.append(c == 0 ? "" : "-+-").append("-".repeat(widths[c]));
    }
    out.println(rule);
    for (String[] cells : rows) {
      out.println(line(cells, widths, numeric));
    }
    long total = table.rowCount();
    out.println("(" + total + (total == 1 ? " row" : " rows")
        + (total > rows.size() ? ", the first " + rows.size() + " shown: raise --max-rows for more)" : ")"));
  }

  private static String line(String[] cells, int[] widths, boolean[] rightAligned) {
    StringBuilder text = new StringBuilder();
    for (int c = 0; c < cells.length; c++) {
      text.append(c == 0 ? "" : " | ");
      String pad = " ".repeat(widths[c] - cells[c].length());
      text.append(rightAligned[c] ? pad + cells[c] : cells[c] + (c == cells.length - 1 ? "" : pad));
    }
    return text.toString();
  }
}
