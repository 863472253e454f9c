package dev.memwall.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.spill.SpillDirectory;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Random tables for the spilling tests, and result comparison: columns {@code k} (INT64 key: skewed,
 * duplicated, with nulls and the type's limits), {@code s} (STRING key: a small domain, dictionary
 * encoded, or many distinct plain strings, with nulls and multi-byte characters), {@code d}
 * (DECIMAL(2) values with nulls), {@code f} (FLOAT64 with nulls, negative zero, infinities and
 * NaN), {@code i} (INT32 at its limits) and {@code day} (DATE).
 */
final class SpillTestData {
  private SpillTestData() {}

  /** How the INT64 key is laid out over the rows. */
  enum Layout {
    /** Keys in random order. */
    RANDOM,
    /** Keys ascending (nulls last), as lineitem is clustered on its order key. */
    SORTED,
    /** The first half of the rows has 16 keys, the second half the many others: groups arrive late. */
    LATE_GROUPS
  }

  /** {@code rows} random rows over about {@code groups} distinct keys; {@code manyStrings}: plain strings, else encoded. */
  static Table table(EngineMemory memory, long seed, int rows, int groups, boolean manyStrings) {
    return table(memory, seed, rows, groups, manyStrings, Layout.RANDOM);
  }

  /** As {@link #table(EngineMemory, long, int, int, boolean)}, with the keys laid out as {@code layout} says. */
  static Table table(EngineMemory memory, long seed, int rows, int groups, boolean manyStrings, Layout layout) {
    Random random = new Random(seed);
    List<String> names = List.of("k", "s", "d", "f", "i", "day");
    List<ColumnType> types = List.of(ColumnType.INT64, ColumnType.STRING, ColumnType.decimal(2), ColumnType.FLOAT64,
        ColumnType.INT32, ColumnType.DATE);
    boolean[] encoded = {false, !manyStrings, false, false, false, false};
    String[] domain = {"", "a", "green apple", "grün", "ivory", "é", "zz", "promo tin"};
    long[] limits = {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0};
    Long[] keys = new Long[rows];
    for (int r = 0; r < rows; r++) {
      int pick = random.nextInt(100);
      if (layout == Layout.LATE_GROUPS && r < rows / 2) {
        keys[r] = (long) random.nextInt(16);
      } else if (pick == 0) {
        keys[r] = null;
      } else if (pick == 1) {
        keys[r] = limits[random.nextInt(limits.length)];
      } else if (pick < 20) {
        keys[r] = (long) random.nextInt(16); // heavy hitters
      } else {
        keys[r] = random.nextInt(Math.max(1, groups)) * 7919L - 1_000_000L;
      }
    }
    if (layout == Layout.SORTED) {
      java.util.Arrays.sort(keys, java.util.Comparator.nullsLast(java.util.Comparator.naturalOrder()));
    }
    try (TableBuilder builder = new TableBuilder(names, types, encoded, memory.arrow())) {
      for (int r = 0; r < rows; r++) {
        if (keys[r] == null) {
          builder.appendNull();
        } else {
          builder.appendLong(keys[r]);
        }
        if (random.nextInt(50) == 0) {
          builder.appendNull();
        } else if (manyStrings) {
          builder.appendString(("s" + random.nextInt(Math.max(1, groups / 4)) + "ü").getBytes(StandardCharsets.UTF_8));
        } else {
          builder.appendString(domain[random.nextInt(domain.length)].getBytes(StandardCharsets.UTF_8));
        }
        if (random.nextInt(20) == 0) {
          builder.appendNull();
        } else {
          builder.appendLong(random.nextInt(2_000_001) - 1_000_000);
        }
        int f = random.nextInt(400);
        if (f == 0) {
          builder.appendNull();
        } else if (f == 1) {
          builder.appendDouble(Double.NaN);
        } else if (f == 2) {
          builder.appendDouble(random.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY);
        } else if (f == 3) {
          builder.appendDouble(-0.0);
        } else {
          builder.appendDouble((random.nextInt(2_000_001) - 1_000_000) / 64.0); // exact in binary: sums are order-free
        }
        int i = random.nextInt(100);
        builder.appendLong(i == 0 ? Integer.MIN_VALUE : i == 1 ? Integer.MAX_VALUE : random.nextInt(1000) - 500);
        builder.appendLong(9000 + random.nextInt(3000));
        builder.endRow();
      }
      return builder.build();
    }
  }

  /** Every row of {@code table} as Java values. */
  static List<List<Object>> rows(Table table) {
    List<List<Object>> rows = new ArrayList<>();
    for (Batch batch : table.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        List<Object> row = new ArrayList<>();
        for (var column : batch.columns()) {
          Object value = column.getObject(r);
          row.add(value == null ? null : value instanceof Double || value instanceof Float ? value : value.toString());
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** Asserts both tables hold the same rows, in any order (doubles compared exactly, NaN equal to NaN). */
  static void assertSameRows(Table expected, Table actual, String what) {
    assertSameRows(expected, List.of(actual), what);
  }

  /**
   * Asserts that the tables {@code actual} hold {@code expected}'s rows between them, in any order.
   * The rows are compared as multisets (each row's count in a hash map), so that a comparison costs
   * a pass over each side rather than a sort of every row's text; a difference names a row that is
   * missing and one that should not be there.
   */
  static void assertSameRows(Table expected, List<Table> actual, String what) {
    Map<List<Object>, Integer> missing = new HashMap<>();
    long expectedRows = 0;
    for (List<Object> row : rows(expected)) {
      missing.merge(row, 1, Integer::sum);
      expectedRows++;
    }
    long actualRows = 0;
    List<Object> unexpected = null;
    for (Table table : actual) {
      for (List<Object> row : rows(table)) {
        actualRows++;
        Integer left = missing.get(row);
        if (left == null) {
          if (unexpected == null) {
            unexpected = row; // the first, for the message
          }
        } else if (left == 1) {
          missing.remove(row);
        } else {
          missing.put(row, left - 1);
        }
      }
    }
    assertEquals(expectedRows, actualRows, what + ": rows");
    if (unexpected != null || !missing.isEmpty()) {
      assertEquals(String.valueOf(missing.keySet().stream().findFirst().orElse(null)), String.valueOf(unexpected),
          what + ": a row missing (expected) and one not expected (actual)");
    }
  }

  /** Asserts both tables hold the same rows in the same order. */
  static void assertSameRowsInOrder(Table expected, Table actual, String what) {
    List<List<Object>> e = rows(expected);
    List<List<Object>> a = rows(actual);
    assertEquals(e.size(), a.size(), what + ": rows");
    for (int r = 0; r < e.size(); r++) {
      if (!e.get(r).equals(a.get(r))) {
        assertEquals(e.get(r).toString(), a.get(r).toString(), what + ": row " + r);
      }
    }
  }

  /** No spill directory beyond the {@code directories} live before, and no file under {@code root}. */
  static void assertNoSpillLeft(Path root, int directories) throws IOException {
    assertEquals(directories, SpillDirectory.liveDirectories(), "spill directories left");
    try (Stream<Path> left = Files.list(root)) {
      assertEquals(0, left.count(), "spill files left under " + root);
    }
  }
}
