package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.memory.OffHeapBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The executor's cache of shared builds, without Spark: tasks are threads, a build is an off-heap buffer,
 * a broadcast's value any object. One build for concurrent first tasks, failed and killed builds not
 * kept (the next task builds), unused builds freed when their broadcast's value is collected or their
 * memory is needed, least recently used first, and nothing left allocated.
 */
class BroadcastBuildCacheTest {
  private static final int KB = 1024;
  private static final Runnable NOT_KILLED = () -> {};

  /** A build: one buffer of the build's memory. */
  private record Held(OffHeapBuffer buffer) implements AutoCloseable {
    @Override
    public void close() {
      buffer.close();
    }
  }

  private final ExecutorService tasks = Executors.newFixedThreadPool(4);
  private final AtomicInteger attempts = new AtomicInteger();

  @AfterEach
  void stopTasks() throws InterruptedException {
    tasks.shutdownNow();
    assertTrue(tasks.awaitTermination(10, TimeUnit.SECONDS));
  }

  private static BroadcastBuildCache<Held> cache(long bytes) {
    return new BroadcastBuildCache<>(MemoryBudget.of("test broadcast builds", bytes));
  }

  /** A builder of {@code bytes}, counted in {@link #attempts}. */
  private BroadcastBuildCache.Builder<Held> allocating(long bytes) {
    return memory -> {
      attempts.incrementAndGet();
      return new Held(memory.allocate(bytes));
    };
  }

  private static BroadcastBuildCache<Held>.Use acquire(BroadcastBuildCache<Held> cache, long id, Object value,
      BroadcastBuildCache.Builder<Held> builder) {
    return cache.acquire(id, "spec", value, "test build " + id, builder, NOT_KILLED);
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
      Thread.sleep(5);
    }
  }

  private static void assertNothingHeld(BroadcastBuildCache<Held> cache) {
    assertEquals(0, cache.userCount(), "uses still open");
    cache.evictAllUnused();
    assertEquals(0, cache.liveCount(), "builds still held");
    assertEquals(0, cache.allocatedBytes(), "memory still allocated");
    assertEquals(0, cache.leakCount(), "a freed build leaked");
  }

  @Test
  void concurrentFirstTasksBuildOnceAndShare() throws Exception {
    BroadcastBuildCache<Held> cache = cache(1 << 20);
    Object broadcast = new Object();
    BroadcastBuildCache.Builder<Held> slow = memory -> {
      attempts.incrementAndGet();
      try {
        await(() -> cache.userCount() == 4, "every task waits for the build");
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      return new Held(memory.allocate(8 * KB));
    };
    List<Future<BroadcastBuildCache<Held>.Use>> uses = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      uses.add(tasks.submit(() -> acquire(cache, 7, broadcast, slow)));
    }
    Held shared = uses.get(0).get(30, TimeUnit.SECONDS).value();
    for (Future<BroadcastBuildCache<Held>.Use> use : uses) {
      assertSame(shared, use.get(30, TimeUnit.SECONDS).value());
    }
    assertEquals(1, attempts.get(), "built once");
    assertEquals(1, cache.buildCount());
    for (Future<BroadcastBuildCache<Held>.Use> use : uses) {
      use.get().close();
    }
    assertEquals(0, cache.userCount());
    assertEquals(1, cache.liveCount(), "kept while the broadcast lives");
    try (BroadcastBuildCache<Held>.Use later = acquire(cache, 7, broadcast, allocating(8 * KB))) {
      assertSame(shared, later.value(), "a later task shares it too");
    }
    assertEquals(1, attempts.get());
    assertNothingHeld(cache);
  }

  @Test
  void aFailedBuildIsNotKeptAndAWaitingTaskBuildsInstead() throws Exception {
    BroadcastBuildCache<Held> cache = cache(1 << 20);
    Object broadcast = new Object();
    AtomicBoolean fail = new AtomicBoolean(true);
    BroadcastBuildCache.Builder<Held> failsFirst = memory -> {
      attempts.incrementAndGet();
      OffHeapBuffer half = memory.allocate(8 * KB);
      if (fail.getAndSet(false)) {
        try {
          await(() -> cache.userCount() == 2, "the second task waits");
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        } finally {
          half.close(); // a builder frees what it allocated before it fails
        }
        throw new IllegalStateException("the first build fails");
      }
      return new Held(half);
    };
    Future<BroadcastBuildCache<Held>.Use> first = tasks.submit(() -> acquire(cache, 1, broadcast, failsFirst));
    await(() -> cache.userCount() == 1, "the first task builds");
    Future<BroadcastBuildCache<Held>.Use> second = tasks.submit(() -> acquire(cache, 1, broadcast, failsFirst));
    Exception failure = assertThrows(Exception.class, () -> first.get(30, TimeUnit.SECONDS));
    assertTrue(failure.getCause().getMessage().contains("the first build fails"), failure.toString());
    try (BroadcastBuildCache<Held>.Use use = second.get(30, TimeUnit.SECONDS)) {
      assertEquals(8 * KB, use.value().buffer().byteSize());
    }
    assertEquals(2, attempts.get(), "the waiting task built it again");
    assertEquals(1, cache.buildCount());
    assertNothingHeld(cache);
  }

  @Test
  void aFailedBuildIsRetriedByTheNextTask() {
    BroadcastBuildCache<Held> cache = cache(1 << 20);
    Object broadcast = new Object();
    AtomicBoolean killed = new AtomicBoolean(true);
    BroadcastBuildCache.Builder<Held> killedOnce = memory -> {
      attempts.incrementAndGet();
      try (OffHeapBuffer partial = memory.allocate(4 * KB)) {
        if (killed.getAndSet(false)) {
          throw new QueryCancelledException(QueryCancelledException.Reason.CANCELLED, "task killed while building");
        }
      }
      return new Held(memory.allocate(4 * KB));
    };
    assertThrows(QueryCancelledException.class, () -> acquire(cache, 3, broadcast, killedOnce));
    assertEquals(0, cache.allocatedBytes(), "the killed build left nothing");
    assertEquals(0, cache.liveCount());
    try (BroadcastBuildCache<Held>.Use use = acquire(cache, 3, broadcast, killedOnce)) {
      assertEquals(4 * KB, use.value().buffer().byteSize());
    }
    assertEquals(2, attempts.get(), "built by the next task, not failed again");
    assertNothingHeld(cache);
  }

  @Test
  void aKilledWaitingTaskStopsAndTheBuildGoesOn() throws Exception {
    BroadcastBuildCache<Held> cache = cache(1 << 20);
    Object broadcast = new Object();
    AtomicBoolean finish = new AtomicBoolean();
    AtomicBoolean kill = new AtomicBoolean();
    BroadcastBuildCache.Builder<Held> slow = memory -> {
      attempts.incrementAndGet();
      try {
        await(finish::get, "the test lets the build finish");
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      return new Held(memory.allocate(KB));
    };
    Future<BroadcastBuildCache<Held>.Use> builder = tasks.submit(() -> acquire(cache, 5, broadcast, slow));
    await(() -> cache.userCount() == 1, "the first task builds");
    Future<BroadcastBuildCache<Held>.Use> waiter = tasks.submit(() -> cache.acquire(5, "spec", broadcast, "b", slow,
        () -> {
          if (kill.get()) {
            throw new IllegalStateException("task killed");
          }
        }));
    await(() -> cache.userCount() == 2, "the second task waits");
    kill.set(true);
    Exception killed = assertThrows(Exception.class, () -> waiter.get(30, TimeUnit.SECONDS));
    assertInstanceOf(IllegalStateException.class, killed.getCause());
    assertEquals(1, cache.userCount(), "the killed task let go");
    finish.set(true);
    builder.get(30, TimeUnit.SECONDS).close();
    assertEquals(1, attempts.get());
    assertNothingHeld(cache);
  }

  @Test
  void unusedBuildsAreFreedOnceTheirBroadcastIsCollected() throws Exception {
    BroadcastBuildCache<Held> cache = cache(1 << 20);
    Object[] broadcasts = {new Object(), new Object()};
    acquire(cache, 1, broadcasts[0], allocating(8 * KB)).close();
    BroadcastBuildCache<Held>.Use inUse = acquire(cache, 2, broadcasts[1], allocating(16 * KB));
    assertEquals(2, cache.liveCount());
    broadcasts[0] = null;
    broadcasts[1] = null;
    await(() -> { // the cleaner takes the build out of the live ones, then frees its memory
      System.gc();
      return cache.liveCount() == 1 && cache.allocatedBytes() <= 16 * KB;
    }, "the unused build is freed");
    assertEquals(16 * KB, cache.allocatedBytes(), "the build a task uses stays");
    inUse.close();
    assertEquals(0, cache.liveCount(), "freed by its last user");
    assertEquals(0, cache.allocatedBytes());
    assertNothingHeld(cache);
  }

  @Test
  void aBroadcastReadAgainIsBuiltAgain() {
    BroadcastBuildCache<Held> cache = cache(1 << 20);
    Object first = new Object();
    Object again = new Object(); // the same broadcast id, another value object
    BroadcastBuildCache<Held>.Use old = acquire(cache, 9, first, allocating(KB));
    try (BroadcastBuildCache<Held>.Use use = acquire(cache, 9, again, allocating(KB))) {
      assertNotSame(old.value(), use.value());
      old.close();
      assertEquals(1, cache.liveCount(), "the old build, no longer findable, is freed by its last user");
    }
    assertEquals(2, attempts.get());
    try (BroadcastBuildCache<Held>.Use other =
        cache.acquire(9, "another spec", again, "b", allocating(KB), NOT_KILLED)) {
      assertEquals(2, cache.liveCount(), "another spec of the same broadcast is another build");
    }
    assertNothingHeld(cache);
  }

  @Test
  void aBuildThatDoesNotFitFreesUnusedBuildsLeastRecentlyUsedFirst() {
    BroadcastBuildCache<Held> cache = cache(80 * KB);
    Object[] broadcasts = {new Object(), new Object(), new Object(), new Object(), new Object()};
    acquire(cache, 0, broadcasts[0], allocating(32 * KB)).close();
    acquire(cache, 1, broadcasts[1], allocating(32 * KB)).close();
    BroadcastBuildCache<Held>.Use c = acquire(cache, 2, broadcasts[2], allocating(32 * KB));
    assertEquals(1, cache.evictionCount(), "the least recently used made room");
    assertEquals(64 * KB, cache.allocatedBytes());
    acquire(cache, 1, broadcasts[1], allocating(32 * KB)).close();
    assertEquals(4, attempts.get(), "the more recently used one was kept (C was tried twice)");
    BroadcastBuildCache<Held>.Use d = acquire(cache, 3, broadcasts[3], allocating(32 * KB));
    assertEquals(2, cache.evictionCount());
    BudgetExceededException refused = assertThrows(BudgetExceededException.class,
        () -> acquire(cache, 4, broadcasts[4], allocating(32 * KB)));
    assertTrue(refused.getMessage().contains("test broadcast builds"), refused.getMessage());
    assertEquals(64 * KB, cache.allocatedBytes(),
        "builds in use are never freed for another, and the refused one left nothing");
    assertEquals(2, cache.liveCount());
    c.close();
    d.close();
    assertNothingHeld(cache);
  }

  @Test
  void aRetiredCacheFreesEachBuildWithItsLastUse() {
    BroadcastBuildCache<Held> cache = cache(1 << 20);
    Object broadcast = new Object();
    acquire(cache, 1, new Object(), allocating(KB)).close();
    BroadcastBuildCache<Held>.Use use = acquire(cache, 2, broadcast, allocating(2 * KB));
    cache.retire();
    assertEquals(2 * KB, cache.allocatedBytes(), "the unused build is freed, the used one kept");
    assertThrows(IllegalStateException.class, () -> acquire(cache, 3, broadcast, allocating(KB)));
    use.close();
    use.close(); // idempotent
    assertEquals(0, cache.budget().reservedBytes());
    assertEquals(0, cache.liveCount());
    assertEquals(0, cache.leakCount());
  }

  @Test
  void aBuildThatLeaksIsCaughtWhenFreed() {
    BroadcastBuildCache<Held> cache = cache(1 << 20);
    BroadcastBuildCache.Builder<Held> leaking = memory -> {
      memory.allocate(KB); // never closed
      return new Held(memory.allocate(KB));
    };
    acquire(cache, 1, new Object(), leaking).close();
    assertThrows(RuntimeException.class, cache::evictAllUnused);
    assertEquals(1, cache.leakCount());
  }

  /** Allocation from the memory a builder gets counts against the cache's budget. */
  @Test
  void buildsAreChargedToTheBudget() {
    BroadcastBuildCache<Held> cache = cache(1 << 20);
    EngineMemory[] seen = new EngineMemory[1];
    try (BroadcastBuildCache<Held>.Use use = acquire(cache, 1, new Object(), memory -> {
      seen[0] = memory;
      return new Held(memory.allocate(64 * KB));
    })) {
      assertEquals(64 * KB, cache.budget().reservedBytes());
      assertTrue(seen[0].budget().name().contains("test build 1"), seen[0].budget().name());
    }
    assertNothingHeld(cache);
  }
}
