package dev.memwall.substrait.optimizer;

import dev.memwall.core.stats.ColumnSketch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;

/**
 * Collects one column's {@link ColumnStatistics} in one pass over its values ({@link ColumnSketch}:
 * nulls counted, distinct values estimated with a HyperLogLog, or a dictionary-encoded string
 * column's dictionary size, the range kept for numbers and dates), and turns a sketch, scanned here
 * or read from a data set's statistics sidecar, into the optimizer's statistics.
 *
 * <p>Cost: one read of each value of the column (of each dictionary entry for an encoded one),
 * O(rows), and a 4 KiB heap sketch; nothing is allocated off-heap. Stateless and thread-safe; the
 * table must stay open during the call.
 */
final class ColumnScan {
  private ColumnScan() {}

  /**
   * The statistics of {@code table}'s column {@code name}.
   *
   * @throws IllegalArgumentException when the table has no such column
   */
  static ColumnStatistics of(Table table, String name) {
    int index = table.columnIndex(name);
    return of(ColumnSketch.of(table, index), table.rowCount(), ColumnType.of(table.schema().getFields().get(index)));
  }

  /** The statistics {@code sketch} gives for a column of {@code type} and {@code rows} rows. */
  static ColumnStatistics of(ColumnSketch sketch, long rows, ColumnType type) {
    return new ColumnStatistics(sketch.distinct(rows), sketch.nulls(), sketch.min(), sketch.max(),
        type.kind() == ColumnType.Kind.DECIMAL ? type.scale() : 0);
  }
}
