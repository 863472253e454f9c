package dev.memwall.core.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The MCS lock's own contract: FIFO hand-off, reusable caller-kept nodes, refused node misuse. */
class McsLockTest {

  /**
   * Waiters queued in a known order (each thread starts only once the previous one is the queue's
   * tail) acquire in that order, whether they spin or park, and however many queue up.
   */
  @Property(tries = 25)
  void waitersAcquireInTheOrderTheyQueued(
      @ForAll @IntRange(min = 1, max = 12) int waiters, @ForAll @IntRange(min = 0, max = 2) int spinChoice)
      throws InterruptedException {
    int spins = new int[] {0, 1, SpinThenPark.DEFAULT_SPINS}[spinChoice];
    McsLock lock = new McsLock(spins);
    McsLock.Node holder = new McsLock.Node();
    List<Integer> order = new ArrayList<>(); // written inside the lock only
    List<Thread> threads = new ArrayList<>();
    lock.lock(holder);
    for (int w = 0; w < waiters; w++) {
      int id = w;
      McsLock.Node node = new McsLock.Node();
      threads.add(Thread.ofPlatform().start(() -> {
        lock.lock(node);
        order.add(id);
        lock.unlock(node);
      }));
      LockStress.await("waiter " + id + " is queued", () -> lock.isTail(node));
    }
    lock.unlock(holder);
    for (Thread thread : threads) {
      thread.join(LockStress.DEADLINE_SECONDS * 1000);
      assertFalse(thread.isAlive(), "a waiter never got the lock");
    }
    lock.lock(holder);
    assertEquals(IntStream.range(0, waiters).boxed().toList(), order);
    lock.unlock(holder);
    assertFalse(lock.isLocked());
  }

  @Test
  void oneNodePerThreadServesTwoLocksInTurnUnderContention() throws InterruptedException {
    McsLock first = new McsLock(1);
    McsLock second = new McsLock();
    long[] counts = new long[2];
    LockStress.run(8, thread -> {
      McsLock.Node node = new McsLock.Node();
      for (int i = 0; i < 20_000; i++) {
        McsLock lock = (i & 1) == 0 ? first : second;
        lock.lock(node);
        counts[i & 1]++;
        lock.unlock(node);
        if (node.inUse()) {
          throw new AssertionError("the node stays in use after unlock");
        }
      }
    });
    assertEquals(8 * 10_000L, counts[0]);
    assertEquals(8 * 10_000L, counts[1]);
  }

  @Test
  void theConvenienceFormNestsTwoLocksWithANodePerLock() {
    McsLock outer = new McsLock();
    McsLock inner = new McsLock();
    outer.lock();
    inner.lock();
    assertTrue(outer.isLocked() && inner.isLocked());
    assertThrows(IllegalStateException.class, inner::lock, "not re-entrant: refused, not a deadlock");
    inner.unlock();
    outer.unlock();
    assertFalse(outer.isLocked() || inner.isLocked());
  }

  @Test
  void aNodeInUseIsRefusedForASecondLockAndForRelockingAndTheHeldLockIsUntouched() {
    McsLock held = new McsLock();
    McsLock other = new McsLock();
    McsLock.Node node = new McsLock.Node();
    held.lock(node);
    assertThrows(IllegalStateException.class, () -> other.lock(node));
    assertThrows(IllegalStateException.class, () -> held.lock(node));
    assertFalse(other.isLocked());
    assertTrue(held.isLocked());
    held.unlock(node);
    assertFalse(held.isLocked());
    other.lock(node);
    other.unlock(node);
  }

  @Test
  void anUnlockByANodeOrThreadThatDoesNotHoldTheLockIsRefusedAndTheHolderKeepsIt()
      throws InterruptedException {
    McsLock lock = new McsLock();
    McsLock.Node holder = new McsLock.Node();
    lock.lock(holder);
    assertThrows(IllegalMonitorStateException.class, () -> lock.unlock(new McsLock.Node()));
    Throwable[] fromOtherThread = new Throwable[1];
    Thread other = Thread.ofPlatform().start(() -> {
      try {
        lock.unlock();
      } catch (Throwable e) {
        fromOtherThread[0] = e;
      }
    });
    other.join();
    assertTrue(fromOtherThread[0] instanceof IllegalMonitorStateException, String.valueOf(fromOtherThread[0]));
    assertTrue(lock.isTail(holder));
    lock.unlock(holder);
    assertThrows(IllegalMonitorStateException.class, () -> lock.unlock(holder));
    assertFalse(lock.isLocked());
  }
}
