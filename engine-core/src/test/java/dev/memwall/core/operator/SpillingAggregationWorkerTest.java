package dev.memwall.core.operator;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.spill.SpillSettings;
import dev.memwall.core.spill.WorkingMemory;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link SpillingAggregation.Worker} whose table a spill freed makes its next one at its next chunk,
 * where the memory may be gone: taken by another worker, for the moment before that one spills.
 * Here the test itself takes the memory, between two chunks, as another worker's thread may at any
 * moment.
 */
@ExtendWith(LeakCheck.class)
class SpillingAggregationWorkerTest {
  private static final Schema SCHEMA = new Schema(List.of(ColumnType.INT64.toField("k", false, null)));
  /** Distinct keys, one row each: a worker spilling them passes its chunks through a small table. */
  private static final int ROWS = 64 * Chunk.CAPACITY;
  private static final long LIMIT = 4 << 20;

  @TempDir
  Path root;

  /** On two threads the refused worker waits for the memory and goes on; every key is counted once. */
  @Test
  void aRefusedNewTableWaitsForTheMemory(EngineMemory memory) throws Exception {
    aggregate(memory, 2, (worker, taken) -> {
      CompletableFuture<Void> release = CompletableFuture.runAsync(taken::close,
          CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS));
      worker.run();
      release.join();
    });
  }

  /** On one thread nobody else will free it: the refusal names the operator, and nothing is left behind. */
  @Test
  void aRefusedNewTableOnOneThreadIsANamedRefusal(EngineMemory memory) throws Exception {
    aggregate(memory, 1, (worker, taken) -> {
      try (taken) {
        BudgetExceededException e = assertThrows(BudgetExceededException.class, worker::run);
        assertTrue(e.getMessage().contains(SpillingAggregation.OPERATOR)
            && e.getMessage().contains("give the query more memory"), e.getMessage());
      }
    });
  }

  /**
   * Counts {@link #ROWS} distinct keys on one worker under {@link #LIMIT}, until its table is freed by
   * a spill; then takes every byte the limit has left and hands the rest (the worker's next chunks and
   * the aggregation's end) with the memory taken to {@code check}.
   */
  private void aggregate(EngineMemory memory, int threads, BiConsumer<Runnable, OffHeapBuffer> check)
      throws Exception {
    try (VectorSchemaRoot data = keys(memory);
        Table table = Table.borrow(SCHEMA, List.of(data), null);
        EngineMemory child = memory.child("spilling aggregation worker", LIMIT);
        SpillingAggregation aggregation = new SpillingAggregation(memory, WorkingMemory.owned(child),
            new SpillSettings(root, Long.MAX_VALUE), SCHEMA, List.of(col("k").as("k")),
            List.of(Aggregate.countStar("n")), AggregateLayout.COLUMNS, threads, ROWS, 64 << 10, null)) {
      Batch batch = table.batches().getFirst();
      Chunk chunk = new Chunk();
      SpillingAggregation.Worker worker = aggregation.worker(new Binder(SCHEMA));
      int start = 0;
      long before = child.allocatedBytes();
      while (child.allocatedBytes() >= before) { // a spill frees the table: less allocated than before it
        before = child.allocatedBytes();
        assertTrue(start < ROWS, "the worker spilled before the keys ran out");
        chunk.reset(batch, start, Chunk.CAPACITY);
        worker.consume(chunk);
        start += Chunk.CAPACITY;
      }
      int rest = start;
      OffHeapBuffer taken = child.allocate(child.availableBytes());
      check.accept(() -> {
        for (int s = rest; s < ROWS; s += Chunk.CAPACITY) {
          chunk.reset(batch, s, Chunk.CAPACITY);
          worker.consume(chunk);
        }
        try (Table result = aggregation.finish(List.of(worker))) {
          assertEquals(ROWS, result.rowCount(), "every key once");
        }
      }, taken);
    }
    try (Stream<Path> left = Files.list(root)) {
      assertEquals(0, left.count(), "no spill file is left behind");
    }
  }

  private static VectorSchemaRoot keys(EngineMemory memory) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, memory.arrow());
    BigIntVector k = (BigIntVector) root.getVector(0);
    k.allocateNew(ROWS);
    for (int i = 0; i < ROWS; i++) {
      k.set(i, i * 0x9E3779B97F4A7C15L); // distinct, spread over the hash
    }
    root.setRowCount(ROWS);
    return root;
  }
}
