package dev.memwall.tpch.verify;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/**
 * Compares a query result with its expected rows under the TPC-H rules ({@link ColumnPrecision}),
 * row by row in order (every TPC-H query has an ORDER BY, or returns one row), column by column in
 * SELECT-list order; column names are not compared.
 *
 * <p>Thread safety: stateless. The table is only read; the caller keeps ownership of it.
 */
public final class ResultComparator {
  /** How many differing values a report lists at most. */
  public static final int MAX_REPORTED = 5;

  private ResultComparator() {}

  /**
   * The outcome of a comparison.
   *
   * @param matches whether every value matched
   * @param message "ok", or the row/column count mismatch or the first differences, readable
   */
  public record Outcome(boolean matches, String message) {
    static Outcome ok() {
      return new Outcome(true, "ok");
    }
  }

  /** Compares a memwall result table with {@code expected}. */
  public static Outcome compare(Table actual, ExpectedResult expected) {
    return compare(rows(actual), expected);
  }

  /**
   * Compares rows of values ({@link dev.memwall.core.vector.Column#getObject} objects or JDBC
   * objects) with {@code expected}.
   */
  public static Outcome compare(List<List<Object>> actual, ExpectedResult expected) {
    int columns = expected.columns().size();
    if (!actual.isEmpty() && actual.getFirst().size() != columns) {
      return new Outcome(false, "Q" + expected.query() + ": " + actual.getFirst().size()
          + " columns, expected " + columns + " " + expected.columns());
    }
    if (actual.size() != expected.rows().size()) {
      return new Outcome(false, "Q" + expected.query() + ": " + actual.size() + " rows, expected "
          + expected.rows().size());
    }
    List<String> differences = new ArrayList<>();
    int total = 0;
    for (int row = 0; row < actual.size(); row++) {
      for (int column = 0; column < columns; column++) {
        ColumnPrecision precision = expected.precisions().get(column);
        String want = expected.rows().get(row).get(column);
        Object got = actual.get(row).get(column);
        String why = precision.mismatch(want, got);
        if (why != null) {
          total++;
          if (differences.size() < MAX_REPORTED) {
            differences.add("row " + (row + 1) + " column " + (column + 1) + " '" + expected.columns().get(column)
                + "' (" + precision.token() + "): expected " + want + ", got "
                + (got == null ? "NULL" : ColumnPrecision.text(got)) + " (" + why + ")");
          }
        }
      }
    }
    if (total == 0) {
      return Outcome.ok();
    }
    return new Outcome(false, "Q" + expected.query() + ": " + total + " values differ; "
        + String.join("; ", differences) + (total > differences.size() ? "; ..." : ""));
  }

  /**
   * Another engine's result (DuckDB's) as the expected result of query {@code query}, compared under
   * the official rules of that query's columns ({@link ColumnPrecision#forQuery}). Values of SUM,
   * AVG and ratio columns are rounded half-up to two decimals first, as the validation output
   * prints them: the rules compare against those printed values (an AVG of 0.0478 is printed, and
   * checked, as 0.05).
   */
  public static ExpectedResult expectedFrom(int query, dev.memwall.tpch.verify.QueryResult reference) {
    List<ColumnPrecision> precisions = ColumnPrecision.forQuery(query);
    List<List<String>> rows = reference.rows().stream()
        .map(row -> {
          List<String> texts = new ArrayList<>(row.size());
          for (int c = 0; c < row.size(); c++) {
            texts.add(printed(row.get(c), c < precisions.size() ? precisions.get(c) : ColumnPrecision.STR));
          }
          return texts;
        })
        .toList();
    return new ExpectedResult(query, reference.columns(), precisions, rows);
  }

  private static String printed(Object value, ColumnPrecision precision) {
    if (value == null) {
      return "NULL";
    }
    boolean twoDecimals = precision == ColumnPrecision.SUM || precision == ColumnPrecision.AVG
        || precision == ColumnPrecision.RAT;
    if (twoDecimals && (value instanceof BigDecimal || value instanceof Double || value instanceof Float)) {
      return new BigDecimal(value.toString()).setScale(2, RoundingMode.HALF_UP).toPlainString();
    }
    return ColumnPrecision.text(value);
  }

  /** The rows of {@code table} as Java objects, in order. */
  public static List<List<Object>> rows(Table table) {
    List<List<Object>> rows = new ArrayList<>();
    for (Batch batch : table.batches()) {
      for (int row = 0; row < batch.rowCount(); row++) {
        List<Object> values = new ArrayList<>(batch.columns().size());
        for (var column : batch.columns()) {
          values.add(column.getObject(row));
        }
        rows.add(values);
      }
    }
    return rows;
  }
}
