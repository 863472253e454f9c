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
 * SELECT-list order; column names are not compared. Rows equal on all of the query's ORDER BY keys
 * may come in any order among themselves (SQL leaves ties unordered): such a run of expected rows
 * is matched as a multiset.
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
    int[] orderColumns = orderColumns(expected.query());
    for (int start = 0, end; start < actual.size(); start = end) {
      end = start + 1;
      while (end < actual.size() && tied(expected.rows().get(start), expected.rows().get(end), orderColumns)) {
        end++;
      }
      // a tied row that equals no expected row of its run is reported against the first one left over
      boolean[] taken = new boolean[end - start];
      List<Integer> unmatched = new ArrayList<>();
      for (int row = start; row < end; row++) {
        if (end - start == 1 || equalUntaken(actual.get(row), expected, start, end, taken) < 0) {
          unmatched.add(row);
        }
      }
      int leftOver = start;
      for (int row : unmatched) {
        while (taken[leftOver - start]) {
          leftOver++;
        }
        taken[leftOver - start] = true;
        total += differences(actual.get(row), row, expected, leftOver, differences);
      }
    }
    if (total == 0) {
      return Outcome.ok();
    }
    return new Outcome(false, "Q" + expected.query() + ": " + total + " values differ; "
        + String.join("; ", differences) + (total > differences.size() ? "; ..." : ""));
  }

  /**
   * The differences of {@code actual}, the result's row {@code row}, from expected row
   * {@code expectedRow}, counted, and described into {@code out} up to {@link #MAX_REPORTED} in all.
   */
  private static int differences(List<Object> actual, int row, ExpectedResult expected, int expectedRow,
      List<String> out) {
    int count = 0;
    for (int column = 0; column < expected.columns().size(); column++) {
      ColumnPrecision precision = expected.precisions().get(column);
      String want = expected.rows().get(expectedRow).get(column);
      Object got = actual.get(column);
      String why = precision.mismatch(want, got);
      if (why != null) {
        count++;
        if (out.size() < MAX_REPORTED) {
          out.add("row " + (row + 1) + " column " + (column + 1) + " '" + expected.columns().get(column)
              + "' (" + precision.token() + "): expected " + want + ", got "
              + (got == null ? "NULL" : ColumnPrecision.text(got)) + " (" + why + ")");
        }
      }
    }
    return count;
  }

  /**
   * The position of an expected row in {@code [start, end)} not yet taken that {@code actual}
   * matches in every column (taken now), or -1: the row at the same position is tried first.
   */
  private static int equalUntaken(List<Object> actual, ExpectedResult expected, int start, int end, boolean[] taken) {
    for (int candidate = start; candidate < end; candidate++) {
      if (!taken[candidate - start] && matches(actual, expected, candidate)) {
        taken[candidate - start] = true;
        return candidate;
      }
    }
    return -1;
  }

  private static boolean matches(List<Object> actual, ExpectedResult expected, int row) {
    for (int column = 0; column < expected.columns().size(); column++) {
      if (expected.precisions().get(column).mismatch(expected.rows().get(row).get(column), actual.get(column)) != null) {
        return false;
      }
    }
    return true;
  }

  /** Whether two expected rows are equal on every ORDER BY key (there are some), so their order is not specified. */
  private static boolean tied(List<String> a, List<String> b, int[] orderColumns) {
    if (orderColumns.length == 0) {
      return false;
    }
    for (int column : orderColumns) {
      if (column >= a.size() || !a.get(column).equals(b.get(column))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The SELECT-list positions of query {@code query}'s ORDER BY keys (TPC-H 2.4); empty for the
   * queries that return one row and for a number outside 1-22 (every row then keeps its place).
   */
  static int[] orderColumns(int query) {
    return switch (query) {
      case 1, 9 -> new int[] {0, 1};
      case 7 -> new int[] {0, 1, 2};
      case 2 -> new int[] {0, 2, 1, 3}; // s_acctbal desc, n_name, s_name, p_partkey
      case 3 -> new int[] {1, 2}; // revenue desc, o_orderdate
      case 4, 8, 12, 15, 20, 22 -> new int[] {0};
      case 5, 11 -> new int[] {1}; // revenue desc; value desc
      case 10 -> new int[] {2}; // revenue desc
      case 13, 21 -> new int[] {1, 0}; // custdist desc, c_count desc; numwait desc, s_name
      case 16 -> new int[] {3, 0, 1, 2}; // supplier_cnt desc, p_brand, p_type, p_size
      case 18 -> new int[] {4, 3}; // o_totalprice desc, o_orderdate
      default -> new int[0]; // 6, 14, 17 and 19 return one row
    };
  }

  /**
   * Another engine's result (DuckDB's) as the expected result of query {@code query}, compared under
   * the official rules of that query's columns ({@link ColumnPrecision#forQuery}). Values of SUM,
   * AVG and ratio columns are rounded half-up to two decimals first, as the validation output
   * prints them: the rules compare against those printed values (an AVG of 0.0478 is printed, and
   * checked, as 0.05).
   */
  public static ExpectedResult expectedFrom(int query, QueryResult reference) {
    return expectedFrom(query, reference.columns(), reference.rows());
  }

  /** {@link #expectedFrom(int, QueryResult)} of another engine's column labels and rows. */
  public static ExpectedResult expectedFrom(int query, List<String> columns, List<List<Object>> referenceRows) {
    List<ColumnPrecision> precisions = ColumnPrecision.forQuery(query);
    List<List<String>> rows = referenceRows.stream()
        .map(row -> {
          List<String> texts = new ArrayList<>(row.size());
          for (int c = 0; c < row.size(); c++) {
            texts.add(printed(row.get(c), c < precisions.size() ? precisions.get(c) : ColumnPrecision.STR));
          }
          return texts;
        })
        .toList();
    return new ExpectedResult(query, columns, precisions, rows);
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
