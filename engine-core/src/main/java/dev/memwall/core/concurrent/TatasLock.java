package dev.memwall.core.concurrent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A test-and-test-and-set spin lock (Rudolph and Segall 1984; the cheapest mutex of Johnson, Pandis
 * and Ailamaki 2008 for a critical section few threads contend for). Acquiring is one compare-and-set
 * when the lock is free; a waiter reads the lock word until it looks free and only then tries the
 * compare-and-set, so waiters share the cache line instead of bouncing it; releasing is one release
 * store.
 *
 * <p>Waiting: a waiter spins {@code spinLimit} times ({@link Thread#onSpinWait()} each), then parks
 * with a bounded exponential back-off ({@code parkNanos} from 2 microseconds to half a millisecond,
 * doubling): on a machine whose virtual processors are preempted, a waiter spinning behind a
 * descheduled holder would otherwise burn the core the holder needs. Nobody wakes a parked waiter;
 * it looks again when its park ends.
 *
 * <p>Fairness: none. The releasing thread, or any thread still spinning, usually wins over a parked
 * one; a waiter can be overtaken any number of times. Use {@link McsLock} where hand-off order
 * matters or many threads contend.
 *
 * <p>Misuse: an unlock of a lock nobody holds (a double unlock) throws {@link
 * IllegalMonitorStateException}; the check is a read of a cache line the releaser already owns. An
 * unlock by a thread other than the holder while the lock is held is <b>not</b> detected (it would
 * take a store of the owner on every acquire) and releases the holder's lock: undefined. Not
 * re-entrant: a holder that locks again waits forever.
 *
 * <p>Thread safety: any number of threads may call {@link #lock} and {@link #unlock}.
 */
public final class TatasLock implements ShortLock {
  private static final int FREE = 0;
  private static final int HELD = 1;
  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(TatasLock.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final int spinLimit;

  @SuppressWarnings("unused") // through STATE
  private volatile int state;

  /** A free lock whose waiters spin 1,024 times before parking (see {@link ShortLock}). */
  public TatasLock() {
    this(SpinThenPark.DEFAULT_SPINS);
  }

  /**
   * A free lock whose waiters spin {@code spinLimit} times before parking (0: park at once); a
   * negative limit throws {@link IllegalArgumentException}.
   */
  public TatasLock(int spinLimit) {
    this.spinLimit = SpinThenPark.checkSpinLimit(spinLimit);
  }

  @Override
  public void lock() {
    if (!STATE.compareAndSet(this, FREE, HELD)) {
      lockContended();
    }
  }

  private void lockContended() {
    SpinThenPark wait = new SpinThenPark(spinLimit);
    do {
      while ((int) STATE.getOpaque(this) != FREE) {
        wait.backOff(this);
      }
    } while (!STATE.compareAndSet(this, FREE, HELD));
    wait.restoreInterrupt();
  }

  /** Whether the lock is free at once, taking it if so; never waits. */
  public boolean tryLock() {
    return (int) STATE.getOpaque(this) == FREE && STATE.compareAndSet(this, FREE, HELD);
  }

  @Override
  public void unlock() {
    if ((int) STATE.getOpaque(this) != HELD) {
      throw new IllegalMonitorStateException("unlock of a TatasLock that is not held");
    }
    STATE.setRelease(this, FREE);
  }

  /** Whether some thread holds the lock at this moment (for monitoring and tests). */
  public boolean isLocked() {
    return (int) STATE.getOpaque(this) == HELD;
  }

  @Override
  public String toString() {
    return isLocked() ? "TatasLock[held]" : "TatasLock[free]";
  }
}
