package dev.memwall.substrait.optimizer;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Table;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Collects one column's {@link ColumnStatistics} in one pass over its values: nulls counted,
 * distinct values estimated with a {@link HyperLogLog} (a dictionary-encoded string column's
 * count is its dictionary's size instead, exact when the dictionary holds only values in use, as
 * memwall's writers make it; where only some batches are encoded, their dictionaries' entries join
 * the sketch), the range kept for numbers and dates.
 *
 * <p>Cost: one read of each value of the column (of each dictionary entry for an encoded one),
 * O(rows), and a 4 KiB heap sketch; nothing is
 * allocated off-heap. Stateless and thread-safe; the table must stay open during the call.
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
    ColumnType type = ColumnType.of(table.schema().getFields().get(index));
    boolean ranged = type.isNumber() || type.kind() == ColumnType.Kind.DATE;
    HyperLogLog sketch = new HyperLogLog();
    long nulls = 0;
    long dictionary = 0;
    boolean allEncoded = true;
    Set<Object> sketched = Collections.newSetFromMap(new IdentityHashMap<>());
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (Batch batch : table.batches()) {
      Column column = batch.column(index);
      if (column instanceof DictionaryColumn encoded) {
        dictionary = Math.max(dictionary, encoded.dictionary().length());
        if (sketched.add(encoded.dictionary().arrow())) { // once per dictionary, in case other batches are plain
          for (int entry = 0; entry < encoded.dictionary().length(); entry++) {
            if (!encoded.dictionary().isNull(entry)) {
              sketch.add(encoded.dictionary().getObject(entry).hashCode());
            }
          }
        }
      } else {
        allEncoded = false;
      }
      for (int row = 0; row < column.length(); row++) {
        if (column.isNull(row)) {
          nulls++;
          continue;
        }
        if (column instanceof DictionaryColumn) {
          continue;
        }
        double value = switch (type.kind()) {
          case FLOAT64 -> column.getDouble(row);
          case STRING -> 0;
          default -> column.getLong(row);
        };
        long bits = switch (type.kind()) {
          case FLOAT64 -> Double.doubleToLongBits(value == 0 ? 0.0 : value); // -0.0 equals 0.0
          case STRING -> column.getObject(row).hashCode();
          default -> column.getLong(row);
        };
        sketch.add(bits);
        if (ranged && !Double.isNaN(value)) {
          min = Math.min(min, value);
          max = Math.max(max, value);
        }
      }
    }
    long rows = table.rowCount();
    double distinct = Math.min(allEncoded && dictionary > 0 ? dictionary : sketch.estimate(), rows - nulls);
    boolean hasRange = min <= max;
    return new ColumnStatistics(distinct, nulls, hasRange ? min : Double.NaN, hasRange ? max : Double.NaN,
        type.kind() == ColumnType.Kind.DECIMAL ? type.scale() : 0);
  }
}
