package dev.memwall.core.concurrent;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/** Runs a lock test's threads together and fails on any thread's failure or a hang. */
final class LockStress {
  /** Longer than any of these tests takes even on a loaded two-core machine; a hang fails by it. */
  static final long DEADLINE_SECONDS = 60;

  private LockStress() {}

  /** Runs {@code body(thread)} on {@code threads} platform threads released at once. */
  static void run(int threads, IntConsumer body) throws InterruptedException {
    CountDownLatch start = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      started.add(Thread.ofPlatform().name("lock-stress-" + t).start(() -> {
        try {
          start.await();
          body.accept(thread);
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    start.countDown();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
    for (Thread thread : started) {
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      if (thread.isAlive()) {
        fail(thread.getName() + " still waits after " + DEADLINE_SECONDS + " s: a lost wake-up or deadlock");
      }
    }
    if (failure.get() != null) {
      throw new AssertionError("a thread failed", failure.get());
    }
  }

  /** Waits until {@code condition} holds, failing after the deadline. */
  static void await(String what, java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting until " + what);
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }
}
