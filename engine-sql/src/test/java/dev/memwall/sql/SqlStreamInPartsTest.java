package dev.memwall.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.Catalog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host streaming SQL whose sorted or grouped result is larger than the memory it gives memwall: where
 * {@link Memwall#sql} fails with the named budget error, {@link Memwall#stream} hands out every row (the
 * sort's in order), the operator spilling and its result coming out a part at a time; everything is freed.
 */
@ExtendWith(LeakCheck.class)
class SqlStreamInPartsTest {
  private static final int ROWS = 400_000;
  private static final int KEYS = 150_000;
  /** Less than either result takes (the sorted rows, about 7 MiB; the groups, about 4 MiB). */
  private static final long BUDGET = 3L << 20;

  @TempDir Path spills;

  private static Table table(EngineMemory memory, long[] k, long[] v) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "v"), List.of(ColumnType.INT64, ColumnType.INT64),
        memory.arrow())) {
      for (int i = 0; i < k.length; i++) {
        builder.appendLong(k[i]).appendLong(v[i]).endRow();
      }
      return builder.build();
    }
  }

  /** Every row of the stream as two longs. */
  private static List<long[]> rows(ArrowReader reader) throws IOException {
    List<long[]> rows = new ArrayList<>();
    VectorSchemaRoot root = reader.getVectorSchemaRoot();
    while (reader.loadNextBatch()) {
      BigIntVector first = (BigIntVector) root.getVector(0);
      BigIntVector second = (BigIntVector) root.getVector(1);
      for (int r = 0; r < root.getRowCount(); r++) {
        rows.add(new long[] {first.get(r), second.get(r)});
      }
    }
    return rows;
  }

  @Test
  void aSortAndAGroupingLargerThanTheBudgetStreamOut(EngineMemory data) throws IOException {
    Random random = new Random(5);
    long[] k = new long[ROWS];
    long[] v = new long[ROWS];
    for (int i = 0; i < ROWS; i++) {
      k[i] = random.nextInt(KEYS);
      v[i] = random.nextInt(1_000_000);
    }
    try (Table big = table(data, k, v); BufferAllocator host = new RootAllocator()) {
      Catalog catalog = new Catalog().register("big", big);
      List<long[]> sorted = new ArrayList<>();
      Map<Long, Long> sums = new HashMap<>();
      for (int i = 0; i < ROWS; i++) {
        if (v[i] != 13) {
          sorted.add(new long[] {k[i], v[i]});
          sums.merge(k[i], v[i], Long::sum);
        }
      }
      sorted.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(b[1], a[1]));

      for (String sql : List.of("select k, v from big where v <> 13 order by k, v desc",
          "select k, sum(v) as s from big where v <> 13 group by k")) {
        try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("less than the result", BUDGET))) {
          ExecutionContext context = ExecutionContext.builder(memory).threads(2).memoryLimit(BUDGET / 4)
              .spillDirectory(spills).build();
          BudgetExceededException whole = assertThrows(BudgetExceededException.class,
              () -> Memwall.sql(catalog, sql, context).close());
          assertTrue(whole.getMessage().contains("output"), whole.getMessage());

          List<long[]> rows;
          try (ArrowReader reader = Memwall.stream(catalog, sql, context, host)) {
            rows = rows(reader);
          }
          if (sql.contains("order by")) {
            assertEquals(sorted.size(), rows.size());
            for (int r = 0; r < rows.size(); r++) {
              assertEquals(sorted.get(r)[0] + "/" + sorted.get(r)[1], rows.get(r)[0] + "/" + rows.get(r)[1], "row " + r);
            }
          } else {
            Map<Long, Long> streamed = new HashMap<>();
            rows.forEach(row -> assertEquals(null, streamed.put(row[0], row[1]), "group " + row[0] + " once"));
            assertEquals(sums, streamed);
          }
          assertEquals(0, memory.allocatedBytes(), sql);
        }
        assertEquals(0, host.getAllocatedMemory());
        try (var left = java.nio.file.Files.list(spills)) {
          assertEquals(0, left.count(), "spill files left under " + spills);
        }
      }
    }
  }
}
