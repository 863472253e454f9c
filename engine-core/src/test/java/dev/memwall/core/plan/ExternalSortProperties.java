package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.spill.SpillDirectory;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.testing.QuickTries;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Spilled sort against the in-memory one: random tables (ties, nulls, strings plain and encoded,
 * decimals, doubles with NaN, infinities and negative zero, type limits) filtered and projected,
 * then ordered by random keys in both directions with nulls last or first, with and without a limit,
 * first with an unlimited working memory to measure the need, then at 1/2, 1/8 and 1/64 of it. On one thread the rows come
 * in the same order, ties included (the sort is stable); on two, whose workers split the input
 * differently each run, the key columns come in the same order and the rows are the same (all of
 * them without a limit). A top-N never spills. The result read in parts ({@link Plan#parts}), through a
 * projection after the sort, is the result executed whole.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class ExternalSortProperties {
  private static final String[] COLUMNS = {"k", "s", "d", "f", "i", "day"};
  /** The fractions of the measured need the sort runs under (an aggregation's floor is higher). */
  static final int[] FRACTIONS = {2, 8, 64};

  @Property(tries = 10)
  @QuickTries(4)
  void spilledSortEqualsInMemory(@ForAll long seed, @ForAll @IntRange(min = 1, max = 2) int threads,
      @ForAll boolean manyStrings, @ForAll boolean topN, EngineMemory data, EngineMemory memory) throws IOException {
    Random random = new Random(seed);
    List<SortKey> keys = new ArrayList<>();
    List<String> keyNames = new ArrayList<>();
    for (int n = 1 + random.nextInt(3); keys.size() < n; ) {
      String column = COLUMNS[random.nextInt(COLUMNS.length)];
      if (!keyNames.contains(column)) {
        keyNames.add(column);
        SortKey key = random.nextBoolean() ? SortKey.asc(column) : SortKey.desc(column);
        keys.add(random.nextInt(3) == 0 ? key.withNullsFirst() : key);
      }
    }
    long limit = topN ? 1 + random.nextInt(100) : Long.MAX_VALUE;
    Path root = Files.createTempDirectory("memwall-sort-spill");
    try (Table table = SpillTestData.table(data, seed, 200_000, 2_000 + random.nextInt(100_000), manyStrings)) {
      Plan plan = Plan.scan(table).filter(col("i").ne(lit(13)))
          .project(col("k").as("k"), col("s").as("s"), col("d").as("d"), col("f").as("f"), col("i").as("i"),
              col("day").as("day"))
          .orderBy(keys.toArray(SortKey[]::new));
      if (topN) {
        plan = plan.limit(limit);
      }
      List<SpillReport> reports = new ArrayList<>();
      try (Table expected = plan.execute(ExecutionContext.builder(memory).threads(threads)
          .spillReports(reports::add).build())) {
        long need = reports.getLast().peakWorkingBytes();
        for (int fraction : FRACTIONS) {
          int directories = SpillDirectory.liveDirectories();
          ExecutionContext context = ExecutionContext.builder(memory).threads(threads).memoryLimit(need / fraction)
              .spillDirectory(root).spillReports(reports::add).build();
          try (Table actual = plan.execute(context)) {
            SpillReport report = reports.getLast();
            String what = keys + " limit " + limit + " at 1/" + fraction + " of " + need + " bytes: " + report;
            if (fraction > 2) {
              assertEquals(!topN, report.spilled(), what); // a top-N of a hundred rows keeps them in memory
            }
            assertTrue(report.peakWorkingBytes() <= need / fraction, what);
            if (threads == 1) {
              SpillTestData.assertSameRowsInOrder(expected, actual, what);
            } else {
              assertEquals(keyColumns(expected, keyNames), keyColumns(actual, keyNames), what);
              if (!topN) {
                SpillTestData.assertSameRows(expected, actual, what);
              }
            }
            // a projection after the sort runs over each part, in order
            Plan projected = plan.project(Arrays.stream(COLUMNS).map(c -> col(c).as(c)).toArray(NamedExpr[]::new));
            assertPartsInOrder(projected.parts(context, null), actual, keyNames, threads == 1, !topN, what);
          }
          SpillTestData.assertNoSpillLeft(root, directories);
        }
      }
    } finally {
      Files.deleteIfExists(root);
    }
  }

  /**
   * Asserts that the parts of a result ({@link Plan#parts}) hold {@code whole}'s rows: in the same order
   * ({@code stable}), or with the key columns in the same order and, unless ties may be cut by a limit
   * ({@code !sameRows}), the same rows.
   */
  private static void assertPartsInOrder(TableReader.Tables result, Table whole, List<String> keyNames, boolean stable,
      boolean sameRows, String what) {
    List<Table> parts = new ArrayList<>();
    try (result) {
      for (Table part = result.next(); part != null; part = result.next()) {
        parts.add(part);
      }
      List<List<Object>> rows = new ArrayList<>();
      parts.forEach(part -> rows.addAll(SpillTestData.rows(part)));
      List<List<Object>> expected = SpillTestData.rows(whole);
      if (stable) {
        assertEquals(expected, rows, what + ", in parts");
      } else {
        assertEquals(keyColumns(List.of(whole), keyNames), keyColumns(parts, keyNames), what + ", in parts");
      }
      if (!stable && sameRows) {
        assertEquals(expected.stream().map(Object::toString).sorted().toList(),
            rows.stream().map(Object::toString).sorted().toList(), what + ", in parts");
      }
    } finally {
      parts.forEach(Table::close);
    }
  }

  /** The named columns of every row, in order. */
  private static List<String> keyColumns(Table table, List<String> names) {
    return keyColumns(List.of(table), names);
  }

  /** The named columns of every row of {@code tables}, one after another, in order. */
  private static List<String> keyColumns(List<Table> tables, List<String> names) {
    List<String> rows = new ArrayList<>();
    for (var batch : tables.stream().flatMap(t -> t.batches().stream()).toList()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        StringBuilder row = new StringBuilder();
        for (String name : names) {
          row.append(batch.column(name).getObject(r)).append('|');
        }
        rows.add(row.toString());
      }
    }
    return rows;
  }
}
