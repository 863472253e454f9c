package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.arrow.StandardArrow;
import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.concurrent.CancellationToken;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Plan.stream: standard Arrow batches in the host's allocator, the schema known before anything runs,
 * the same rows as execute, a streaming result produced round by round, and an early close that frees
 * everything.
 */
@ExtendWith(LeakCheck.class)
class PlanStreamTest {
  private static final int ROWS = 600_000;

  private static Table table(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "price", "name"),
        List.of(ColumnType.INT64, ColumnType.decimal(2), ColumnType.STRING), memory.arrow())) {
      for (int i = 0; i < ROWS; i++) {
        builder.appendLong(i % 1000).appendLong(i).appendString(("n" + i % 7).getBytes(java.nio.charset.StandardCharsets.UTF_8))
            .endRow();
      }
      return builder.build();
    }
  }

  private static List<String> rows(ArrowReader reader) throws IOException {
    List<String> rows = new ArrayList<>();
    VectorSchemaRoot root = reader.getVectorSchemaRoot();
    while (reader.loadNextBatch()) {
      String[] lines = root.contentToTSVString().split("\n");
      for (int i = 1; i < lines.length; i++) {
        rows.add(lines[i]);
      }
    }
    return rows;
  }

  @Test
  void streamedResultsEqualExecutedOnesForEveryPlanShape(EngineMemory memory) throws IOException {
    try (Table table = table(memory); BufferAllocator host = new RootAllocator()) {
      long input = memory.allocatedBytes();
      List<Plan> plans = List.of(
          Plan.scan(table),
          Plan.scan(table).filter(col("k").lt(lit(10))).project(col("name").as("name"), col("price").as("price")),
          Plan.scan(table).aggregate(List.of(col("name").as("name")), Aggregate.sum(col("price"), "total")),
          Plan.scan(table).aggregate(List.of(col("k").as("k")), Aggregate.countStar("n")).filter(col("n").gt(lit(0))),
          Plan.scan(table).filter(col("k").gt(lit(990))).orderBy(SortKey.desc("price")).limit(5));
      for (int threads = 1; threads <= 3; threads++) {
        ExecutionContext context = new ExecutionContext(memory, threads);
        for (Plan plan : plans) {
          List<String> expected;
          try (TableReader executed = TableReader.of(plan.execute(context), host)) {
            expected = rows(executed);
          }
          try (ArrowReader streamed = plan.stream(context, host)) {
            assertEquals(StandardArrow.schema(plan.schema()), streamed.getVectorSchemaRoot().getSchema());
            List<String> actual = rows(streamed);
            if (!plan.toString().contains("TopN")) {
              expected.sort(null);
              actual.sort(null);
            }
            assertEquals(expected, actual, plan.explain());
          }
          assertEquals(input, memory.allocatedBytes(), "the streamed plan freed everything");
        }
      }
      assertEquals(0, host.getAllocatedMemory());
    }
  }

  @Test
  void aStreamingResultComesInRoundsAndAnEarlyCloseFreesEverything(EngineMemory memory) throws IOException {
    try (Table table = table(memory); BufferAllocator host = new RootAllocator()) {
      Plan plan = Plan.scan(table).filter(col("k").ge(lit(0)));
      ExecutionContext context = new ExecutionContext(memory, 2);
      long before = memory.allocatedBytes();
      long whole;
      try (Table result = plan.execute(context)) {
        whole = memory.allocatedBytes() - before;
      }
      try (ArrowReader reader = plan.stream(context, host)) {
        assertEquals(before, memory.allocatedBytes(), "nothing runs before the first load");
        assertTrue(reader.loadNextBatch());
        long held = memory.allocatedBytes() - before;
        // one round: about STREAM_BATCH_ROWS rows per thread, under half of the whole result here
        assertTrue(held < whole / 2, "held " + held + " bytes after the first batch; the whole result takes " + whole);
      }
      assertEquals(before, memory.allocatedBytes(), "closing early freed the rounds");
      assertEquals(0, host.getAllocatedMemory());
    }
  }

  @Test
  void aCancelledStreamStopsWithTheNamedErrorAndFreesItsRounds(EngineMemory memory) throws IOException {
    try (Table table = table(memory); BufferAllocator host = new RootAllocator()) {
      long input = memory.allocatedBytes();
      CancellationToken token = new CancellationToken();
      ExecutionContext context = ExecutionContext.builder(memory).threads(2).cancellation(token).build();
      try (ArrowReader reader = Plan.scan(table).stream(context, host)) {
        assertTrue(reader.loadNextBatch());
        token.cancel();
        boolean more = true;
        QueryCancelledException stopped = null;
        while (more) {
          try {
            more = reader.loadNextBatch();
          } catch (QueryCancelledException e) {
            stopped = e;
            break;
          }
        }
        assertFalse(stopped == null, "the stream noticed the cancel before its end");
      }
      assertEquals(input, memory.allocatedBytes());
      assertEquals(0, host.getAllocatedMemory());
      Plan bad = Plan.scan(table).aggregate(List.of(), Aggregate.sum(col("name"), "s"));
      assertThrows(IllegalArgumentException.class, () -> bad.stream(context, host));
    }
  }
}
