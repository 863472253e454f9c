package dev.memwall.core.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** What only the TATAS lock has: a try-lock, and waiters that park without being woken. */
class TatasLockTest {

  @Test
  void tryLockTakesOnlyAFreeLock() {
    TatasLock lock = new TatasLock();
    assertTrue(lock.tryLock());
    assertTrue(lock.isLocked());
    assertFalse(lock.tryLock());
    lock.unlock();
    assertFalse(lock.isLocked());
    assertTrue(lock.tryLock());
    lock.unlock();
  }

  /**
   * A waiter parked at the back-off's longest interval notices a release by itself: nobody unparks
   * a TATAS waiter.
   */
  @Test
  void aParkedWaiterNoticesTheReleaseWithoutBeingWoken() throws InterruptedException {
    TatasLock lock = new TatasLock(0);
    AtomicBoolean acquired = new AtomicBoolean();
    lock.lock();
    Thread waiter = Thread.ofPlatform().start(() -> {
      lock.lock();
      acquired.set(true);
      lock.unlock();
    });
    Thread.sleep(30); // long enough for the back-off to reach its longest park
    assertFalse(acquired.get());
    lock.unlock();
    waiter.join(LockStress.DEADLINE_SECONDS * 1000);
    assertTrue(acquired.get());
    assertEquals("TatasLock[free]", lock.toString());
  }
}
