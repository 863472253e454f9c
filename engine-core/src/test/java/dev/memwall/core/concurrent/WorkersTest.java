package dev.memwall.core.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WorkersTest {

  @Test
  void runsEveryTaskOnceTheFirstOnTheCallingThreadOthersNamedAfterTheStepOrOnTheCaller() {
    AtomicInteger runs = new AtomicInteger();
    var names = ConcurrentHashMap.<String>newKeySet();
    Thread caller = Thread.currentThread();
    boolean[] firstOnCaller = new boolean[1];
    List<Runnable> tasks = new ArrayList<>();
    tasks.add(() -> {
      firstOnCaller[0] = Thread.currentThread() == caller;
      runs.incrementAndGet();
    });
    for (int i = 0; i < 5; i++) {
      tasks.add(() -> {
        names.add(Thread.currentThread().getName());
        runs.incrementAndGet();
      });
    }
    Workers.runAll("step-x", tasks);
    assertEquals(6, runs.get());
    assertTrue(firstOnCaller[0]);
    names.remove(caller.getName()); // the caller runs tasks whose thread had not started yet
    assertTrue(java.util.Set.of("step-x").containsAll(names), names.toString());
  }

  @Test
  void aLaterStepReusesTheIdleThreadsOfAnEarlierOne() throws InterruptedException {
    Thread caller = Thread.currentThread();
    var first = ConcurrentHashMap.<Thread>newKeySet();
    var second = ConcurrentHashMap.<Thread>newKeySet();
    Workers.runAll("first", tasksRecording(first, 4));
    Thread.sleep(200); // their threads have gone back to waiting for tasks
    Workers.runAll("second", tasksRecording(second, 4));
    first.remove(caller);
    second.remove(caller);
    assertTrue(!first.isEmpty() && first.containsAll(second), "reused " + second + " of " + first);
  }

  /** {@code count} tasks that each wait a moment (so none finishes before the others start) and record their thread. */
  private static List<Runnable> tasksRecording(java.util.Set<Thread> threads, int count) {
    List<Runnable> tasks = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      tasks.add(() -> {
        threads.add(Thread.currentThread());
        sleepThen(new AtomicInteger(), 20);
      });
    }
    return tasks;
  }

  @Test
  void rethrowsTheFailureOfAPooledTaskAfterTheOthersFinished() {
    AtomicInteger finished = new AtomicInteger();
    IllegalArgumentException boom = new IllegalArgumentException("boom");
    List<Runnable> tasks = List.of(
        () -> sleepThen(finished, 50),
        () -> {
          throw boom;
        },
        () -> sleepThen(finished, 100));
    IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> Workers.runAll("t", tasks));
    assertSame(boom, thrown);
    assertEquals(2, finished.get(), "every other task ran to completion before the failure was rethrown");
  }

  @Test
  void nestedStepsRunAndWhenSeveralTasksFailOneOfTheirFailuresIsRethrown() {
    AtomicInteger inner = new AtomicInteger();
    List<Runnable> nested = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      nested.add(() -> Workers.runAll("inner", List.of(inner::incrementAndGet, inner::incrementAndGet)));
    }
    Workers.runAll("outer", nested);
    assertEquals(8, inner.get());
    AssertionError error = new AssertionError("first");
    IllegalStateException other = new IllegalStateException("second");
    Throwable thrown = assertThrows(Throwable.class, () -> Workers.runAll("t", List.of(() -> {
      throw error;
    }, () -> {
      throw other;
    })));
    assertTrue(thrown == error || thrown == other, "rethrows one of the failures itself, got " + thrown);
  }

  @Test
  void aFailingTaskStopsItsSiblingsAtTheirNextCheckpointAndItsOwnFailureIsThrown() {
    IllegalStateException boom = new IllegalStateException("boom");
    AtomicInteger stoppedByCheckpoint = new AtomicInteger();
    java.util.concurrent.CountDownLatch spinning = new java.util.concurrent.CountDownLatch(2);
    Runnable spinner = () -> {
      spinning.countDown();
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (System.nanoTime() < deadline) {
        try {
          ExecutionControl.checkpoint();
        } catch (QueryCancelledException e) {
          stoppedByCheckpoint.incrementAndGet();
          throw e;
        }
      }
    };
    long start = System.nanoTime();
    Throwable thrown = assertThrows(Throwable.class, () -> ExecutionControl.run(null, null, 0, () -> {
      Workers.runAll("t", List.of(spinner, () -> {
        try {
          spinning.await();
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
        throw boom;
      }, spinner));
      return null;
    }));
    assertSame(boom, thrown);
    assertEquals(2, stoppedByCheckpoint.get());
    assertTrue(System.nanoTime() - start < 5_000_000_000L, "the spinners stopped long before their 10 s");
  }

  @Test
  void outsideAnyQueryCheckpointsStopNothing() {
    ExecutionControl.checkpoint();
    Thread.currentThread().interrupt();
    try {
      ExecutionControl.checkpoint(); // no query: an interrupt is the caller's business
    } finally {
      assertTrue(Thread.interrupted());
    }
  }

  private static void sleepThen(AtomicInteger finished, long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    finished.incrementAndGet();
  }
}
