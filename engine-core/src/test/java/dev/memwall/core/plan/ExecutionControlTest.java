package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.concurrent.CancellationToken;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A host's control over a running plan: its executor runs the tasks, and a token, a timeout or an
 * interrupt stops the plan promptly with one named exception, leaving no memory behind.
 */
@ExtendWith(LeakCheck.class)
class ExecutionControlTest {
  /** Large enough that the slow plans below run for seconds uncancelled. */
  private static final int ROWS = 3_000_000;
  private static EngineMemory data;
  private static Table table;

  @BeforeAll
  static void build() {
    data = EngineMemory.create("control test data");
    try (TableBuilder builder = new TableBuilder(List.of("k", "v"), List.of(ColumnType.INT64, ColumnType.INT64),
        data.arrow())) {
      for (int i = 0; i < ROWS; i++) {
        builder.appendLong((i * 2_654_435_761L) % 1_000_003).appendLong(i).endRow();
      }
      table = builder.build();
    }
  }

  @AfterAll
  static void free() {
    table.close();
    data.close();
  }

  /** A plan that takes a while: a many-group aggregation, then a full sort of its groups, repeated. */
  private static Plan slowPlan() {
    return Plan.scan(table).aggregate(List.of(col("k").as("k"), col("v").as("v")), Aggregate.countStar("n"))
        .orderBy(SortKey.desc("v"));
  }

  @Test
  void aCancelledTokenStopsThePlanBeforeItAllocates(EngineMemory memory) {
    CancellationToken token = new CancellationToken();
    token.cancel();
    ExecutionContext context = ExecutionContext.builder(memory).threads(2).cancellation(token).build();
    var e = assertThrows(QueryCancelledException.class, () -> slowPlan().execute(context).close());
    assertEquals(QueryCancelledException.Reason.CANCELLED, e.reason());
    assertEquals(0, memory.allocatedBytes());
  }

  @Test
  void cancellingMidwayStopsEveryOperatorPromptlyAndFreesItsMemory(EngineMemory memory) throws Exception {
    ExecutorService canceller = Executors.newSingleThreadExecutor();
    try {
      for (long delayMillis : new long[] {5, 60, 250, 700}) {
        CancellationToken token = new CancellationToken();
        ExecutionContext context = ExecutionContext.builder(memory).threads(2).cancellation(token).build();
        long[] cancelledAt = new long[1];
        canceller.submit(() -> {
          Thread.sleep(delayMillis);
          cancelledAt[0] = System.nanoTime();
          token.cancel();
          return null;
        });
        var e = assertThrows(QueryCancelledException.class, () -> slowPlan().execute(context).close(),
            "cancelled after " + delayMillis + " ms");
        long stoppedAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cancelledAt[0]);
        assertEquals(QueryCancelledException.Reason.CANCELLED, e.reason());
        // a guard against an operator loop without checkpoints (that took seconds); the latency itself is
        // measured by CancellationLatencyBenchmark, and a loaded 2-core VM can stall a thread this long
        assertTrue(stoppedAfterMillis < 1_000, "stopped " + stoppedAfterMillis + " ms after the cancel");
        assertEquals(0, memory.allocatedBytes(), "a cancelled plan frees what it allocated");
      }
    } finally {
      canceller.shutdownNow();
    }
  }

  @Test
  void aTimeoutStopsThePlanNamingTheDeadline(EngineMemory memory) {
    ExecutionContext context = ExecutionContext.builder(memory).threads(2).timeout(Duration.ofMillis(30)).build();
    var e = assertThrows(QueryCancelledException.class, () -> slowPlan().execute(context).close());
    assertEquals(QueryCancelledException.Reason.DEADLINE, e.reason());
    assertTrue(e.getMessage().contains("deadline"), e.getMessage());
    assertEquals(0, memory.allocatedBytes());
  }

  @Test
  void futureCancelInterruptsThePlan(EngineMemory memory) throws Exception {
    ExecutorService host = Executors.newSingleThreadExecutor();
    try {
      ExecutionContext context = new ExecutionContext(memory, 2);
      Future<Long> query = host.submit(() -> {
        try (Table result = slowPlan().execute(context)) {
          return result.rowCount();
        }
      });
      Thread.sleep(100);
      query.cancel(true);
      // the host's thread is free again promptly: the next task runs
      Future<Boolean> next = host.submit(() -> true);
      assertTrue(next.get(2, TimeUnit.SECONDS));
      assertTrue(query.isCancelled());
      assertEquals(0, memory.allocatedBytes(), "the interrupted plan freed its memory");
    } finally {
      host.shutdownNow();
    }
  }

  @Test
  void anInterruptedCallerGetsTheNamedExceptionAndKeepsItsInterruptStatus(EngineMemory memory) throws Exception {
    AtomicInteger outcome = new AtomicInteger();
    Thread caller = Thread.ofPlatform().start(() -> {
      try {
        slowPlan().execute(new ExecutionContext(memory, 2)).close();
        outcome.set(1);
      } catch (QueryCancelledException e) {
        outcome.set(e.reason() == QueryCancelledException.Reason.INTERRUPTED && Thread.currentThread().isInterrupted()
            ? 2 : 3);
      }
    });
    Thread.sleep(100);
    caller.interrupt();
    caller.join(5_000);
    assertFalse(caller.isAlive());
    assertEquals(2, outcome.get(), "1: ran to the end, 2: interrupted as expected, 3: another reason or lost status");
    assertEquals(0, memory.allocatedBytes());
  }

  @Test
  void aHostExecutorRunsTheTasksAndMemwallStartsNoThreads(EngineMemory memory) throws Exception {
    Set<String> threads = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(2, r -> Thread.ofPlatform().name("host-pool").unstarted(r));
    try {
      ExecutionContext context = ExecutionContext.builder(memory).threads(3)
          .executor(task -> pool.execute(() -> {
            threads.add(Thread.currentThread().getName());
            task.run();
          })).build();
      long expected;
      try (Table reference = plan().execute(new ExecutionContext(memory, 1))) {
        expected = sum(reference, memory);
      }
      Set<Thread> before = Thread.getAllStackTraces().keySet();
      try (Table result = plan().execute(context)) {
        assertEquals(expected, sum(result, memory));
      }
      assertEquals(Set.of("host-pool"), threads);
      assertTrue(Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
          .noneMatch(t -> t.getName().startsWith("memwall")), "no memwall thread was started");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aSameThreadOrRejectingExecutorCannotDeadlockAPlan(EngineMemory memory) {
    long expected;
    try (Table reference = plan().execute(new ExecutionContext(memory, 1))) {
      expected = sum(reference, memory);
    }
    ExecutionContext sameThread = ExecutionContext.builder(memory).threads(4).executor(Runnable::run).build();
    ExecutionContext rejecting = ExecutionContext.builder(memory).threads(4).executor(task -> {
      throw new RejectedExecutionException("full");
    }).build();
    // a pool whose only thread is busy running this very plan
    ExecutorService single = Executors.newSingleThreadExecutor();
    try {
      for (ExecutionContext context : List.of(sameThread, rejecting)) {
        try (Table result = plan().execute(context)) {
          assertEquals(expected, sum(result, memory));
        }
      }
      ExecutionContext busy = ExecutionContext.builder(memory).threads(4).executor(single).build();
      long fromPool = single.submit(() -> {
        try (Table result = plan().execute(busy)) {
          return sum(result, memory);
        }
      }).get(30, TimeUnit.SECONDS);
      assertEquals(expected, fromPool);
    } catch (InterruptedException | ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new AssertionError(e);
    } finally {
      single.shutdownNow();
    }
  }

  private static Plan plan() {
    return Plan.scan(table).aggregate(List.of(col("k").as("k")), Aggregate.sum(col("v"), "s"));
  }

  private static long sum(Table result, EngineMemory memory) {
    try (Table total = Plan.scan(result).aggregate(List.of(), Aggregate.sum(col("s"), "t"))
        .execute(ExecutionContext.singleThreaded(memory))) {
      return ((org.apache.arrow.vector.BigIntVector) total.roots().getFirst().getVector(0)).get(0);
    }
  }
}
