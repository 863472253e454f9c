package dev.memwall.core.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Both short locks through {@link ShortLock}: exclusion and progress with more threads than the
 * machine has cores (so holders are preempted and waiters park), with every waiter parking at once,
 * interrupts, and refused misuse.
 */
class ShortLockTest {
  /** More than the cores of the machines these tests run on, so holders get descheduled. */
  private static final int THREADS = 8;

  static Stream<Arguments> locks() {
    return Stream.of(
        Arguments.of(Named.<IntFunction<ShortLock>>of("TATAS", TatasLock::new)),
        Arguments.of(Named.<IntFunction<ShortLock>>of("MCS", McsLock::new)));
  }

  /** A plain counter, and a check that no two threads are inside at once. */
  private static final class Guarded {
    long count;
    int inside;

    void enter() {
      if (++inside != 1) {
        throw new AssertionError(inside + " threads inside the critical section");
      }
      count++;
      inside--;
    }
  }

  private static void hammer(ShortLock lock, Guarded guarded, int iterations) throws InterruptedException {
    LockStress.run(THREADS, thread -> {
      for (int i = 0; i < iterations; i++) {
        lock.lock();
        try {
          guarded.enter();
        } finally {
          lock.unlock();
        }
      }
    });
  }

  @ParameterizedTest
  @MethodSource("locks")
  void everyIncrementOfAPlainCounterCountsUnderContention(IntFunction<ShortLock> factory) throws InterruptedException {
    ShortLock lock = factory.apply(SpinThenPark.DEFAULT_SPINS);
    Guarded guarded = new Guarded();
    hammer(lock, guarded, 10_000);
    assertEquals(THREADS * 10_000L, guarded.count);
  }

  @ParameterizedTest
  @MethodSource("locks")
  void noWakeUpIsLostWhenEveryWaiterParksAtOnce(IntFunction<ShortLock> factory) throws InterruptedException {
    for (int spins : new int[] {0, 1}) {
      ShortLock lock = factory.apply(spins);
      Guarded guarded = new Guarded();
      hammer(lock, guarded, 3_000);
      assertEquals(THREADS * 3_000L, guarded.count, "spin limit " + spins);
    }
  }

  @ParameterizedTest
  @MethodSource("locks")
  void anInterruptedWaiterStillGetsTheLockAndKeepsItsInterrupt(IntFunction<ShortLock> factory)
      throws InterruptedException {
    ShortLock lock = factory.apply(0);
    AtomicBoolean waiting = new AtomicBoolean();
    AtomicBoolean keptInterrupt = new AtomicBoolean();
    lock.lock();
    Thread waiter = Thread.ofPlatform().start(() -> {
      Thread.currentThread().interrupt();
      waiting.set(true);
      lock.lock();
      keptInterrupt.set(Thread.interrupted());
      lock.unlock();
    });
    LockStress.await("the waiter is about to wait", waiting::get);
    Thread.sleep(20); // the waiter parks, and its park returns at once while interrupted
    waiter.interrupt();
    lock.unlock();
    waiter.join(LockStress.DEADLINE_SECONDS * 1000);
    assertFalse(waiter.isAlive(), "the interrupted waiter never got the lock");
    assertTrue(keptInterrupt.get());
  }

  @ParameterizedTest
  @MethodSource("locks")
  void aDoubleUnlockIsRefusedByNameAndTheLockStaysUsable(IntFunction<ShortLock> factory) {
    ShortLock lock = factory.apply(SpinThenPark.DEFAULT_SPINS);
    assertThrows(IllegalMonitorStateException.class, lock::unlock);
    lock.lock();
    lock.unlock();
    assertThrows(IllegalMonitorStateException.class, lock::unlock);
    lock.lock();
    lock.unlock();
  }

  @ParameterizedTest
  @MethodSource("locks")
  void aNegativeSpinLimitIsRefused(IntFunction<ShortLock> factory) {
    assertThrows(IllegalArgumentException.class, () -> factory.apply(-1));
  }
}
