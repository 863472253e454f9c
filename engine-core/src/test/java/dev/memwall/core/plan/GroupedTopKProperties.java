package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.frequent.Guarantees;
import dev.memwall.core.frequent.SpaceSaving;
import dev.memwall.core.frequent.Streams;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link Plan#approxTopKPerGroup} on 1 and 2 threads against exact counts per group: INT64 and string
 * values (plain and dictionary-encoded) with nulls, group keys skewed, at the limits of int and null,
 * behind a filter; one group, as many groups as rows. Also the schema, refused keys and a budget too
 * small for the groups' summaries.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class GroupedTopKProperties {
  private static final List<String> COLUMNS = List.of("g", "l", "s", "keep");

  /** Values by Zipf rank with some nulls; group keys by a second Zipf draw over {@code groups}, some null. */
  private static Table table(EngineMemory memory, int rows, int groups, int distinct, double skew, long seed,
      boolean encoded) {
    long[] ranks = Streams.zipf(rows, distinct, skew, Streams.Keys.SMALL, seed);
    long[] groupRanks = Streams.zipf(rows, groups, 1.0, Streams.Keys.SMALL, seed + 1);
    SplittableRandom random = new SplittableRandom(seed + 2);
    try (TableBuilder builder = new TableBuilder(COLUMNS, List.of(ColumnType.INT32, ColumnType.INT64,
        ColumnType.STRING, ColumnType.INT32), new boolean[] {false, false, encoded, false}, memory.arrow())
        .batchRows(512)) {
      for (int row = 0; row < rows; row++) {
        int group = (int) groupRanks[row];
        if (random.nextInt(25) == 0) {
          builder.appendNull();
        } else {
          builder.appendLong(group % 2 == 0 ? Integer.MIN_VALUE + group : Integer.MAX_VALUE - group);
        }
        int rank = (int) ranks[row];
        if (random.nextInt(20) == 0) {
          builder.appendNull().appendNull();
        } else {
          builder.appendLong(rank % 3 == 0 ? Long.MIN_VALUE + rank : rank)
              .appendString(("v" + rank + "ü").getBytes(StandardCharsets.UTF_8));
        }
        builder.appendLong(random.nextInt(8) == 0 ? 0 : 1).endRow();
      }
      return builder.build();
    }
  }

  /** Exact counts of column {@code column}'s non-null values per group key (null included), over the rows kept. */
  private static Map<Object, Map<Object, Long>> exact(Table table, int column) {
    Map<Object, Map<Object, Long>> counts = new HashMap<>();
    for (Batch batch : table.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        Object value = batch.column(column).getObject(r);
        if (value != null && batch.column(3).getLong(r) == 1) {
          counts.computeIfAbsent(batch.column(0).getObject(r), g -> new HashMap<>()).merge(value, 1L, Long::sum);
        }
      }
    }
    return counts;
  }

  /** The result's rows by group key, in the order they came; checks the keys ascend with the null key last. */
  private static Map<Object, List<Guarantees.Reported<Object>>> groups(Table result) {
    try (result) {
      Map<Object, List<Guarantees.Reported<Object>>> groups = new LinkedHashMap<>();
      for (Batch batch : result.batches()) {
        for (int r = 0; r < batch.rowCount(); r++) {
          groups.computeIfAbsent(batch.column(0).getObject(r), g -> new ArrayList<>())
              .add(new Guarantees.Reported<>(batch.column(1).getObject(r), batch.column(2).getLong(r),
                  batch.column(3).getLong(r), batch.column(4).getLong(r) == 1));
        }
      }
      List<Object> keys = new ArrayList<>(groups.keySet());
      for (int i = 1; i < keys.size(); i++) {
        Object previous = keys.get(i - 1);
        @SuppressWarnings("unchecked")
        Comparable<Object> before = (Comparable<Object>) previous;
        assertTrue(before != null && (keys.get(i) == null || before.compareTo(keys.get(i)) < 0),
            "groups out of order: " + keys);
      }
      return groups;
    }
  }

  @Property(tries = 20)
  void everyGroupsRowsKeepTheGuaranteesAgainstItsExactCounts(@ForAll @IntRange(min = 0, max = 6_000) int rows,
      @ForAll @IntRange(min = 1, max = 300) int groups, @ForAll @IntRange(min = 1, max = 800) int distinct,
      @ForAll @DoubleRange(min = 0, max = 2) double skew, @ForAll @IntRange(min = 1, max = 12) int k,
      @ForAll @IntRange(min = 1, max = 64) int counters, @ForAll long seed, @ForAll boolean encoded,
      EngineMemory memory) {
    try (Table table = table(memory, rows, groups, distinct, skew, seed, encoded)) {
      for (int column : new int[] {1, 2}) {
        Map<Object, Map<Object, Long>> exact = exact(table, column);
        Plan plan = Plan.scan(table).filter(col("keep").eq(lit(1)))
            .approxTopKPerGroup(col("g"), col(COLUMNS.get(column)), k, counters);
        for (int threads : new int[] {1, 2}) {
          Map<Object, List<Guarantees.Reported<Object>>> result =
              groups(plan.execute(new ExecutionContext(memory, threads)));
          assertEquals(exact.keySet(), result.keySet(), "the groups with values");
          exact.forEach((group, counts) -> Guarantees.checkTopK(result.get(group), k, counts,
              counts.values().stream().mapToLong(Long::longValue).sum(), counters));
        }
      }
    }
  }

  @Example
  void oneGroupIsTheUngroupedTopKAndEveryRowItsOwnGroupIsExact(EngineMemory memory) {
    try (Table table = table(memory, 3_000, 1, 200, 1.2, 5, true)) {
      Plan grouped = Plan.scan(table).project(col("l").as("l"), lit(7).as("one")).approxTopKPerGroup(col("one"), col("l"), 5, 32);
      Plan plain = Plan.scan(table).approxTopK(col("l"), 5, 32);
      try (Table a = grouped.execute(ExecutionContext.singleThreaded(memory));
          Table b = plain.execute(ExecutionContext.singleThreaded(memory))) {
        assertEquals(b.rowCount(), a.rowCount());
        for (int r = 0; r < a.rowCount(); r++) {
          assertEquals(7L, a.batches().getFirst().column(0).getLong(r));
          assertEquals(b.batches().getFirst().column(0).getObject(r), a.batches().getFirst().column(1).getObject(r));
          assertEquals(b.batches().getFirst().column(1).getLong(r), a.batches().getFirst().column(2).getLong(r));
        }
      }
      // a group per value: each group's only value is exact and guaranteed
      Map<Object, List<Guarantees.Reported<Object>>> perValue = groups(Plan.scan(table)
          .approxTopKPerGroup(col("l"), col("l"), 1, 1).execute(new ExecutionContext(memory, 2)));
      perValue.forEach((group, items) -> {
        assertEquals(1, items.size());
        assertEquals(group, items.getFirst().key());
        assertTrue(items.getFirst().guaranteed() && items.getFirst().error() == 0, items.toString());
      });
    }
  }

  @Example
  void theSchemaNamesTheKeyAndRefusedKeysAreNamed(EngineMemory memory) {
    try (Table table = table(memory, 50, 3, 5, 1, 1, false)) {
      Plan plan = Plan.scan(table).approxTopKPerGroup(col("g"), col("s"), 2, 8);
      assertEquals(List.of("g", "s", "count", "error_bound", "guaranteed"), plan.columnNames());
      assertEquals(plan.columnNames(), plan.schema().getFields().stream().map(f -> f.getName()).toList());
      assertEquals(ColumnType.INT32, ColumnType.of(plan.schema().getFields().getFirst()));
      assertEquals(50, plan.maxRows());
      assertTrue(plan.explain().contains("approximate top 2 of s per g"), plan.explain());
      assertEquals(List.of("group", "l", "count", "error_bound", "guaranteed"),
          Plan.scan(table).approxTopKPerGroup(col("l").add(lit(1)), col("l"), 1, 4).columnNames());
      assertEquals(List.of("group", "g", "count", "error_bound", "guaranteed"),
          Plan.scan(table).approxTopKPerGroup(col("g"), col("g"), 1, 4).columnNames());
      var strings = assertThrows(IllegalArgumentException.class,
          () -> Plan.scan(table).approxTopKPerGroup(col("s"), col("l"), 1, 4).schema());
      assertTrue(strings.getMessage().contains("group key must be integral"), strings.getMessage());
      assertThrows(IllegalArgumentException.class, () -> Plan.scan(table).approxTopKPerGroup(col("g"), col("l"), 0, 4));
      assertThrows(IllegalArgumentException.class, () -> Plan.scan(table).approxTopKPerGroup(col("g"), col("l"), 1, 0));
      assertThrows(NullPointerException.class, () -> Plan.scan(table).approxTopKPerGroup(null, col("l"), 1, 4));
    }
  }

  @Example
  void aBudgetTooSmallForTheGroupsFailsByNameAndFreesEverything() {
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("groups", 6L << 20))) {
      try (Table table = table(memory, 4_000, 4_000, 50, 0, 3, false)) {
        long before = memory.allocatedBytes();
        // a thousand groups and more, each with 4,096 counters (about 400 KiB): far beyond 6 MiB
        var e = assertThrows(BudgetExceededException.class, () -> Plan.scan(table)
            .approxTopKPerGroup(col("g"), col("l"), 3, 4096).execute(new ExecutionContext(memory, 2)).close());
        assertEquals(SpaceSaving.OPERATOR, e.operator());
        assertEquals(before, memory.allocatedBytes(), "the refused plan freed every group's summary");
      }
    }
  }
}
