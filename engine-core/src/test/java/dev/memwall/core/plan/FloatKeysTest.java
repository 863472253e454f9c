package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Grouping by a FLOAT64 key: -0.0 groups with 0.0 and every NaN (whatever its sign and payload) with
 * every other NaN, nulls form their own group, and each group's key is the normalized value (0.0, the
 * canonical NaN), with one worker or several merging their groups, in memory or spilled.
 */
@ExtendWith(LeakCheck.class)
class FloatKeysTest {
  private static final double[] VALUES = {-0.0, 0.0, Double.NaN, Double.longBitsToDouble(0x7ff8000000000123L),
      Double.longBitsToDouble(0xfff8000000000000L), Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.5,
      -1.5, Double.MIN_VALUE, -Double.MAX_VALUE};
  private static final int ROWS = 10_000;

  @Test
  void negativeZeroAndEveryNanGroupTogetherUnderTheirNormalizedKey(EngineMemory memory) {
    Map<Long, long[]> expected = new TreeMap<>(); // key bits (null: -1) -> rows, sum of k
    try (TableBuilder builder = new TableBuilder(List.of("k", "f"), List.of(ColumnType.INT64, ColumnType.FLOAT64),
        memory.arrow())) {
      for (int row = 0; row < ROWS; row++) {
        int pick = (int) ((row * 7919L) % (VALUES.length + 1));
        builder.appendLong(row);
        long bits;
        if (pick == VALUES.length) {
          builder.appendNull();
          bits = -1;
        } else {
          builder.appendDouble(VALUES[pick]);
          bits = VALUES[pick] == 0.0 ? 0L : Double.doubleToLongBits(VALUES[pick]);
        }
        builder.endRow();
        long[] group = expected.computeIfAbsent(bits, b -> new long[2]);
        group[0]++;
        group[1] += row;
      }
      try (Table table = builder.build()) {
        assertEquals(VALUES.length + 1 - 3, expected.size(), "-0.0 and two NaNs fold into other groups");
        for (int threads = 1; threads <= 2; threads++) {
          try (Table result = Plan.scan(table)
              .aggregate(List.of(col("f").as("f")), Aggregate.countStar("n"), Aggregate.sum(col("k"), "total"))
              .execute(new ExecutionContext(memory, threads))) {
            assertEquals(text(expected), text(groups(result)), threads + " threads");
          }
        }
      }
    }
  }

  /** Spilled and partitioned by hash, the groups are those the aggregation makes in memory. */
  @Test
  void spilledGroupsKeepTheirNormalizedKeys(EngineMemory memory, @TempDir Path spills) throws Exception {
    try (TableBuilder builder = new TableBuilder(List.of("k", "f"), List.of(ColumnType.INT64, ColumnType.FLOAT64),
        memory.arrow())) {
      java.util.Set<Long> keys = new java.util.HashSet<>();
      for (int row = 0; row < 200_000; row++) {
        double f = row % 5 == 0 ? VALUES[row / 5 % VALUES.length] : row % 50_000 * 0.25;
        builder.appendLong(row).appendDouble(f).endRow();
        keys.add(f == 0.0 ? 0L : Double.doubleToLongBits(f));
      }
      try (Table table = builder.build()) {
        Plan plan = Plan.scan(table).aggregate(List.of(col("f").as("f")), Aggregate.countStar("n"),
            Aggregate.sum(col("k"), "total"));
        List<SpillReport> reports = new ArrayList<>();
        try (Table expected = plan.execute(ExecutionContext.builder(memory).spillReports(reports::add).build())) {
          long need = reports.getLast().peakWorkingBytes();
          try (Table actual = plan.execute(ExecutionContext.builder(memory).memoryLimit(need / 16)
              .spillDirectory(spills).spillReports(reports::add).build())) {
            SpillReport report = reports.getLast();
            assertTrue(report.spilledBytes() > 0, report.toString());
            SpillTestData.assertSameRows(expected, actual, report.toString());
            Map<Long, long[]> groups = groups(actual);
            assertEquals(keys.size(), groups.size());
            assertTrue(groups.containsKey(Double.doubleToRawLongBits(Double.NaN)) && groups.containsKey(0L));
          }
        }
      }
    }
  }

  private static String text(Map<Long, long[]> groups) {
    StringBuilder text = new StringBuilder();
    groups.forEach((bits, group) -> text.append(Long.toHexString(bits)).append(": ").append(group[0]).append(" rows, ")
        .append(group[1]).append('\n'));
    return text.toString();
  }

  /** The result's groups by the raw bits of their key (null: -1). */
  private static Map<Long, long[]> groups(Table result) {
    Map<Long, long[]> groups = new TreeMap<>();
    for (Batch batch : result.batches()) {
      Column key = batch.column("f");
      for (int row = 0; row < batch.rowCount(); row++) {
        long bits = key.isNull(row) ? -1 : Double.doubleToRawLongBits(key.getDouble(row));
        long[] previous = groups.put(bits, new long[] {batch.column("n").getLong(row),
            batch.column("total").getLong(row)});
        assertEquals(null, previous, "one group per key, raw bits " + Long.toHexString(bits));
      }
    }
    return groups;
  }
}
