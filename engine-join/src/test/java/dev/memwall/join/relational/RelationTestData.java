package dev.memwall.join.relational;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Small tables for relation tests: rows as Java lists (null = SQL NULL) of INT32, INT64 and STRING
 * values, turned into Arrow tables, and tables read back into sortable row strings.
 */
final class RelationTestData {
  private RelationTestData() {}

  /** A table named by its columns, with {@code types[i]} one of INT32, INT64, STRING. */
  static Table table(EngineMemory memory, List<String> names, List<ColumnType> types, List<List<Object>> rows) {
    try (TableBuilder builder = new TableBuilder(names, types, memory.arrow())) {
      for (List<Object> row : rows) {
        for (Object value : row) {
          switch (value) {
            case null -> builder.appendNull();
            case String text -> builder.appendString(text.getBytes(StandardCharsets.UTF_8));
            case Number number -> builder.appendLong(number.longValue());
            default -> throw new IllegalArgumentException("unsupported test value " + value);
          }
        }
        builder.endRow();
      }
      return builder.build();
    }
  }

  /** Every row of {@code table} rendered as text, sorted (row order of joins is unspecified). */
  static List<String> rows(Table table) {
    List<String> rows = new ArrayList<>();
    for (Batch batch : table.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        Object[] values = new Object[table.schema().getFields().size()];
        for (int c = 0; c < values.length; c++) {
          values[c] = batch.column(c).getObject(r);
        }
        rows.add(Arrays.toString(values));
      }
    }
    rows.sort(null);
    return rows;
  }

  /** {@code rows} rendered like {@link #rows(Table)}, sorted. */
  static List<String> rows(List<List<Object>> rows) {
    List<String> out = new ArrayList<>();
    for (List<Object> row : rows) {
      out.add(Arrays.toString(row.toArray()));
    }
    out.sort(null);
    return out;
  }
}
