package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.concurrent.CancellationToken;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.frequent.Guarantees;
import dev.memwall.core.frequent.SpaceSaving;
import dev.memwall.core.frequent.Streams;
import dev.memwall.core.frequent.SummarySizing;
import dev.memwall.core.machine.CacheLevel;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@link Plan#approxTopK} and {@link Plan#frequent} on 1 and 2 threads against exact counts: an INT64,
 * an INT32, a DATE and a string column (plain and dictionary-encoded), with nulls, behind a filter
 * and a renaming projection; the rows keep the guarantees of the summaries they come from. Also the
 * schema, a budget too small for the counters, and cancellation mid-scan.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class FrequentValuesProperties {
  private static final List<String> COLUMNS = List.of("l", "i", "d", "s", "keep");

  /** Zipf ranks with some nulls, in every column; {@code keep} is 0 for about a tenth of the rows. */
  private static Table table(EngineMemory memory, int rows, int distinct, double skew, long seed, boolean encoded) {
    long[] ranks = Streams.zipf(rows, distinct, skew, Streams.Keys.SMALL, seed);
    SplittableRandom random = new SplittableRandom(seed + 1);
    try (TableBuilder builder = new TableBuilder(COLUMNS, List.of(ColumnType.INT64, ColumnType.INT32, ColumnType.DATE,
        ColumnType.STRING, ColumnType.INT32), new boolean[] {false, false, false, encoded, false}, memory.arrow())
        .batchRows(1024)) {
      for (int row = 0; row < rows; row++) {
        int rank = (int) ranks[row];
        if (random.nextInt(20) == 0) {
          builder.appendNull().appendNull().appendNull().appendNull();
        } else {
          builder.appendLong(rank % 2 == 0 ? Long.MAX_VALUE - rank : Long.MIN_VALUE + rank)
              .appendLong(rank % 2 == 0 ? Integer.MIN_VALUE + rank : rank).appendLong(rank - 1000)
              .appendString(("value " + rank + "ß").getBytes(StandardCharsets.UTF_8));
        }
        builder.appendLong(random.nextInt(10) == 0 ? 0 : 1).endRow();
      }
      return builder.build();
    }
  }

  /** Exact counts of column {@code column}'s non-null values over the rows whose keep is 1. */
  private static Map<Object, Long> exact(Table table, int column) {
    Map<Object, Long> counts = new HashMap<>();
    for (Batch batch : table.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        Object value = batch.column(column).getObject(r);
        if (value != null && batch.column(4).getLong(r) == 1) {
          counts.merge(value, 1L, Long::sum);
        }
      }
    }
    return counts;
  }

  private static List<Guarantees.Reported<Object>> rows(Table result) {
    try (result) {
      List<Guarantees.Reported<Object>> rows = new ArrayList<>();
      for (Batch batch : result.batches()) {
        for (int r = 0; r < batch.rowCount(); r++) {
          rows.add(new Guarantees.Reported<>(batch.column(0).getObject(r), batch.column(1).getLong(r),
              batch.column(2).getLong(r), batch.column(3).getLong(r) == 1));
        }
      }
      return rows;
    }
  }

  @Property(tries = 25)
  void topKAndFrequentRowsKeepTheGuaranteesOnOneAndTwoThreads(@ForAll @IntRange(min = 0, max = 12_000) int rows,
      @ForAll @IntRange(min = 1, max = 3_000) int distinct, @ForAll @DoubleRange(min = 0, max = 2) double skew,
      @ForAll @IntRange(min = 1, max = 30) int k, @ForAll @IntRange(min = 1, max = 200) int counters,
      @ForAll @DoubleRange(min = 0.005, max = 0.5) @net.jqwik.api.constraints.Scale(4) double phi, @ForAll long seed, @ForAll boolean encoded,
      EngineMemory memory) {
    try (Table table = table(memory, rows, distinct, skew, seed, encoded)) {
      for (int column = 0; column < 4; column++) {
        Map<Object, Long> exact = exact(table, column);
        long length = exact.values().stream().mapToLong(Long::longValue).sum();
        String name = COLUMNS.get(column);
        // a renaming projection and a filter before the step: it counts the rows that reach it
        Plan kept = Plan.scan(table).project(col(name).as("x"), col("keep").as("keep")).filter(col("keep").eq(lit(1)));
        for (int threads : new int[] {1, 2}) {
          ExecutionContext context = new ExecutionContext(memory, threads);
          Guarantees.checkTopK(rows(kept.approxTopK(col("x"), k, counters).execute(context)), k, exact, length,
              counters);
          int enough = Math.max(counters, (int) Math.ceil(1 / phi));
          Guarantees.checkFrequent(rows(kept.frequent(col("x"), phi, enough).execute(context)), phi, true, exact,
              length, enough);
          Guarantees.checkFrequent(rows(kept.frequent(col("x"), phi).execute(context)), phi, true, exact, length,
              (int) Math.ceil(2 / phi));
        }
      }
    }
  }

  @Example
  void theSchemaNamesTheValueAndItsBounds(EngineMemory memory) {
    try (Table table = table(memory, 100, 5, 1, 1, true)) {
      Plan plan = Plan.scan(table).approxTopK(col("s"), 3);
      Schema schema = plan.schema();
      assertEquals(List.of("s", "count", "error_bound", "guaranteed"), plan.columnNames());
      assertEquals(plan.columnNames(), schema.getFields().stream().map(f -> f.getName()).toList());
      assertEquals(ColumnType.STRING, ColumnType.of(schema.getFields().getFirst()));
      assertEquals(3, plan.maxRows());
      assertTrue(plan.explain().contains("approximate top 3 of s"), plan.explain());
      try (Table result = plan.execute(ExecutionContext.singleThreaded(memory))) {
        assertEquals(schema.getFields().stream().map(f -> f.getName()).toList(),
            result.batches().getFirst().schema().getFields().stream().map(f -> f.getName()).toList());
      }
      Plan computed = Plan.scan(table).frequent(col("l").add(lit(1)), 0.5);
      assertEquals(List.of("value", "count", "error_bound", "guaranteed"), computed.columnNames());
      Plan clash = Plan.scan(table).project(col("i").as("count")).approxTopK(col("count"), 2);
      assertEquals(List.of("value", "count", "error_bound", "guaranteed"), clash.columnNames());
      try (Table result = clash.execute(ExecutionContext.singleThreaded(memory))) {
        assertEquals(2, result.rowCount());
      }
      // the rows are a table like any other: later steps order and filter them
      try (Table ordered = Plan.scan(table).approxTopK(col("i"), 2).filter(col("count").gt(lit(0)))
          .orderBy(SortKey.asc("i")).execute(ExecutionContext.singleThreaded(memory))) {
        assertEquals(2, ordered.rowCount());
      }
    }
  }

  /** A machine whose L1d has 32 KiB usable, so half of it holds a lookup of 1,024 slots: 512 counters at half load. */
  private static MachineProfile smallL1() {
    return new MachineProfile("synthetic", 2,
        List.of(new MachineProfile.MeasuredCache(new CacheLevel(1, "Data", 32 << 10, 64, 8), 32 << 10, 1.5)),
        100, 10, 10, List.of(), new MachineProfile.Bandwidth(10, 8, 12, 20, 15, 24), 4096,
        new MachineProfile.Tlb(1536, 10, Double.NaN, List.of()));
  }

  @Example
  void theDefaultCountersFillTheLookupsCacheLevelOfTheExecutionsProfile(EngineMemory memory) {
    // uniform over many more values than counters: the errors approach N / counters
    try (Table table = table(memory, 40_000, 20_000, 0, 11, false)) {
      long length = exact(table, 0).values().stream().mapToLong(Long::longValue).sum();
      Plan plan = Plan.scan(table).filter(col("keep").eq(lit(1))).approxTopK(col("l"), 10);
      assertTrue(plan.explain().contains("at least 256 counters per worker"), plan.explain());
      SummarySizing fitted = SummarySizing.atLeast(smallL1(), Plan.defaultTopKCounters(10));
      assertEquals(new SummarySizing(512, 1024, 1, 16 << 10), fitted);
      MachineProfile noCaches = new MachineProfile("no caches", 1, List.of(), 100, 10, 10, List.of(),
          smallL1().bandwidth(), 4096, smallL1().tlb());
      long fittedError = maxError(plan.execute(ExecutionContext.builder(memory).machine(smallL1()).build()));
      long unfittedError = maxError(plan.execute(ExecutionContext.builder(memory).machine(noCaches).build()));
      assertTrue(fittedError * 512.0 <= length, "errors within N / 512: " + fittedError + " of " + length);
      assertTrue(unfittedError * 512.0 > length, "256 counters err beyond N / 512: " + unfittedError);
      assertTrue(unfittedError * 256.0 <= length, unfittedError + " of " + length);
    }
  }

  private static long maxError(Table result) {
    return rows(result).stream().mapToLong(Guarantees.Reported::error).max().orElseThrow();
  }

  @Example
  void valuesItCannotCountAreRefusedByName(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("f", "s"), List.of(ColumnType.FLOAT64, ColumnType.STRING),
        memory.arrow())) {
      builder.appendDouble(1).appendString(new byte[] {'a'}).endRow();
      try (Table table = builder.build()) {
        var floats = assertThrows(IllegalArgumentException.class,
            () -> Plan.scan(table).approxTopK(col("f"), 1).execute(ExecutionContext.singleThreaded(memory)));
        assertTrue(floats.getMessage().contains("FLOAT64"), floats.getMessage());
        var computed = assertThrows(IllegalArgumentException.class,
            () -> Plan.scan(table).approxTopK(Expr.substring(col("s"), 1, 1), 1).schema());
        assertTrue(computed.getMessage().contains("computed string"), computed.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Plan.scan(table).approxTopK(col("s"), 0));
        assertThrows(IllegalArgumentException.class, () -> Plan.scan(table).approxTopK(col("s"), 1, 0));
        assertThrows(IllegalArgumentException.class, () -> Plan.scan(table).frequent(col("s"), 0));
        assertThrows(IllegalArgumentException.class, () -> Plan.scan(table).frequent(col("s"), 1.5));
        var few = assertThrows(IllegalArgumentException.class, () -> Plan.scan(table).frequent(col("s"), 0.1, 9));
        assertTrue(few.getMessage().contains("at least 10 counters"), few.getMessage());
      }
    }
  }

  @Example
  void aBudgetTooSmallForTheCountersFailsByNameAndFreesEverything() {
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("small", 8L << 20))) {
      try (Table table = table(memory, 5000, 100, 1, 7, false)) {
        long before = memory.allocatedBytes();
        ExecutionContext context = new ExecutionContext(memory, 2);
        var e = assertThrows(BudgetExceededException.class,
            () -> Plan.scan(table).approxTopK(col("l"), 10, 1 << 20).execute(context).close());
        assertEquals(SpaceSaving.OPERATOR, e.operator());
        assertEquals(before, memory.allocatedBytes(), "the refused plan freed its summaries");
      }
    }
  }

  @Example
  void aCancelMidScanStopsThePlanAndFreesTheSummaries(EngineMemory memory) {
    try (Table table = table(memory, 20_000, 500, 1, 3, true)) {
      long before = memory.allocatedBytes();
      CancellationToken token = new CancellationToken();
      ExecutionContext context = ExecutionContext.builder(memory).threads(2).cancellation(token).build();
      // a stage that cancels the query at the second chunk it sees, after the summaries have counted the first
      ChunkStage cancelling = new ChunkStage.Narrowing() {
        @Override
        public Worker open(Input input, ExecutionContext unused) {
          return new Worker() {
            private int chunks;

            @Override
            public void process(Chunk chunk, Consumer<Chunk> next) {
              if (++chunks == 2) {
                token.cancel();
              }
              next.accept(chunk);
            }

            @Override
            public void close() {}
          };
        }
      };
      var e = assertThrows(QueryCancelledException.class,
          () -> Plan.scan(table).stage(cancelling).approxTopK(col("s"), 5).execute(context).close());
      assertEquals(QueryCancelledException.Reason.CANCELLED, e.reason());
      assertEquals(before, memory.allocatedBytes(), "a cancelled plan frees its summaries");
    }
  }
}
