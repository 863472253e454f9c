package dev.memwall.join.relational;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.concurrent.CancellationToken;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.join.common.JoinAlgorithm;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Joins, their builds and the materialized algorithms stop on cancellation and leave no memory behind. */
@ExtendWith(LeakCheck.class)
class RelationCancellationTest {
  private static final int ROWS = 2_000_000;
  private static EngineMemory data;
  private static Table left;
  private static Table right;

  @BeforeAll
  static void build() {
    data = EngineMemory.create("cancellation data");
    left = keys(ROWS, 7);
    right = keys(ROWS, 13);
  }

  @AfterAll
  static void free() {
    left.close();
    right.close();
    data.close();
  }

  private static Table keys(int rows, long multiplier) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "v"), List.of(ColumnType.INT64, ColumnType.INT64),
        data.arrow())) {
      for (int i = 0; i < rows; i++) {
        builder.appendLong((i * multiplier) % rows).appendLong(i).endRow();
      }
      return builder.build();
    }
  }

  private static Table join(ExecutionContext context, JoinAlgorithm algorithm) {
    Relation r = Relation.scan(right, context).project(col("k").as("rk"), col("v").as("rv"));
    return Relation.scan(left, context).join(r).on("k", "rk").algorithm(algorithm).keep("k", "v", "rv")
        .aggregate(List.of(col("k").as("k"), col("v").as("v")), Aggregate.sum(col("rv"), "s"))
        .orderBy(SortKey.asc("s")).toTable();
  }

  @Test
  void cancellingAJoinMidwayFreesEverythingForEachAlgorithm(EngineMemory memory) {
    ExecutorService canceller = Executors.newSingleThreadExecutor();
    try {
      for (JoinAlgorithm algorithm : List.of(JoinAlgorithm.AUTO, JoinAlgorithm.PHASH, JoinAlgorithm.OPEN_ADDRESSING)) {
        for (long delayMillis : new long[] {20, 200}) {
          CancellationToken token = new CancellationToken();
          ExecutionContext context = ExecutionContext.builder(memory).threads(2).cancellation(token).build();
          long[] cancelledAt = new long[1];
          canceller.submit(() -> {
            Thread.sleep(delayMillis);
            cancelledAt[0] = System.nanoTime();
            token.cancel();
            return null;
          });
          var e = assertThrows(QueryCancelledException.class, () -> join(context, algorithm).close(),
              algorithm + " after " + delayMillis + " ms");
          assertEquals(QueryCancelledException.Reason.CANCELLED, e.reason());
          long late = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cancelledAt[0]);
          assertTrue(late < 1_000, algorithm + " stopped " + late + " ms after the cancel");
          assertEquals(0, memory.allocatedBytes(), algorithm + ": a cancelled join frees what it allocated");
        }
      }
    } finally {
      canceller.shutdownNow();
    }
  }

  @Test
  void aTimeoutStopsAJoin(EngineMemory memory) {
    ExecutionContext context = ExecutionContext.builder(memory).threads(2).timeout(Duration.ofMillis(50)).build();
    var e = assertThrows(QueryCancelledException.class, () -> join(context, JoinAlgorithm.AUTO).close());
    assertEquals(QueryCancelledException.Reason.DEADLINE, e.reason());
    assertEquals(0, memory.allocatedBytes());
  }
}
