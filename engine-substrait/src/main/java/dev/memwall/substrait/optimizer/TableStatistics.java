package dev.memwall.substrait.optimizer;

import dev.memwall.core.stats.ColumnSketch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A table's row count and its columns' {@link ColumnStatistics}, for cardinality estimates. Either
 * supplied by whoever registers the table ({@link #supplied}: only the columns given are known),
 * {@link #sketched} from sketches its writer kept (a data set's statistics sidecar), or {@link
 * #collected} from the table on first use: each column's statistics are computed by one
 * {@link ColumnScan} the first time the optimizer asks for them, then kept, so that only the
 * columns queries join or filter on are ever scanned, once per table.
 *
 * <p>Ownership: collected statistics read the table, which must stay open while plans over it
 * are prepared. Thread safety: safe for concurrent use; two threads asking for the same column at
 * once wait for one scan.
 */
public final class TableStatistics {
  private final double rows;
  private final Table table;
  private final Map<String, ColumnStatistics> columns;

  private TableStatistics(double rows, Table table, Map<String, ColumnStatistics> columns) {
    if (!(rows >= 0)) {
      throw new IllegalArgumentException("a row count is at least 0: " + rows);
    }
    this.rows = rows;
    this.table = table;
    this.columns = columns;
  }

  /** Statistics computed from {@code table} as they are needed. */
  public static TableStatistics collected(Table table) {
    return new TableStatistics(table.rowCount(), Objects.requireNonNull(table, "table"), new ConcurrentHashMap<>());
  }

  /**
   * Statistics of {@code table} from {@code sketches} by column name (as its writer computed them, for
   * all of its rows); a column without a sketch is collected on first use, as {@link #collected} does.
   *
   * @throws IllegalArgumentException naming the column when a sketch names no column of the table
   */
  public static TableStatistics sketched(Table table, Map<String, ColumnSketch> sketches) {
    Objects.requireNonNull(table, "table");
    Map<String, ColumnStatistics> columns = new ConcurrentHashMap<>();
    sketches.forEach((name, sketch) -> columns.put(name, ColumnScan.of(sketch, table.rowCount(),
        ColumnType.of(table.schema().getFields().get(table.columnIndex(name))))));
    return new TableStatistics(table.rowCount(), table, columns);
  }

  /**
   * Statistics as supplied: {@code rows} rows and {@code columns}' statistics by column name; any
   * other column is unknown.
   *
   * @throws IllegalArgumentException for a negative row count
   */
  public static TableStatistics supplied(double rows, Map<String, ColumnStatistics> columns) {
    return new TableStatistics(rows, null, Map.copyOf(columns));
  }

  /** The number of rows. */
  public double rows() {
    return rows;
  }

  /** Whether column {@code name}'s statistics are at hand, supplied, sketched or collected already, with no scan to wait for. */
  public boolean known(String name) {
    return columns.containsKey(name);
  }

  /** The statistics of column {@code name} (as the table names it), scanned on first use when collected. */
  public Optional<ColumnStatistics> column(String name) {
    if (table == null) {
      return Optional.ofNullable(columns.get(name));
    }
    return Optional.of(columns.computeIfAbsent(name, column -> ColumnScan.of(table, column)));
  }
}
