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
import java.util.Random;

/**
 * Small tables for relation tests: rows as Java lists (null = SQL NULL) of INT32, INT64 and STRING
 * values, turned into Arrow tables, and tables read back into sortable row strings.
 */
final class RelationTestData {
  /** The columns of a random left input ({@link #randomRows}): a int32 key, b int64 key, value, text. */
  static final List<String> LEFT_NAMES = List.of("la", "lb", "lv", "ls");
  /** The columns of a random right input, typed as the left input's. */
  static final List<String> RIGHT_NAMES = List.of("ra", "rb", "rw", "rs");
  /** The types of a random input's columns. */
  static final List<ColumnType> TYPES = List.of(ColumnType.INT32, ColumnType.INT64, ColumnType.INT64,
      ColumnType.STRING);

  private RelationTestData() {}

  /**
   * Rows (a int32 key, b int64 key, value, text) drawn from a small or a limit-valued key domain,
   * half of them on one key (skew), each key and text null with probability {@code nulls}.
   */
  static List<List<Object>> randomRows(Random random, int count, int domain, boolean limits, double nulls) {
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int k = random.nextInt(Math.max(1, domain));
      if (random.nextBoolean()) {
        k = 0; // skew: half the rows on one key
      }
      Integer a = random.nextDouble() < nulls ? null : limits ? (k % 2 == 0 ? Integer.MIN_VALUE : Integer.MAX_VALUE) : k;
      Long b = random.nextDouble() < nulls ? null : limits ? (k % 3 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : k * 7L;
      String s = random.nextDouble() < nulls ? null : "s" + random.nextInt(4);
      rows.add(Arrays.asList(a, b, (long) random.nextInt(100), s));
    }
    return rows;
  }

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
