package dev.memwall.substrait;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.List;

/** A result table's rows as lists of {@link dev.memwall.core.vector.Column#getObject} values, for assertions. */
public final class TableRows {
  private TableRows() {}

  /** The rows of {@code table}, which stays the caller's. */
  public static List<List<Object>> of(Table table) {
    List<List<Object>> rows = new ArrayList<>();
    for (Batch batch : table.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        List<Object> row = new ArrayList<>();
        for (int c = 0; c < batch.columns().size(); c++) {
          row.add(batch.column(c).getObject(r));
        }
        rows.add(row);
      }
    }
    return rows;
  }
}
