package dev.memwall.core.concurrent;

/**
 * A mutual-exclusion lock for critical sections that last well under a microsecond and never block
 * inside: {@link TatasLock} and {@link McsLock} spin first and park only when the holder seems to
 * have been descheduled. Unlike {@link java.util.concurrent.locks.Lock} there is no try-lock, no
 * time-out, no condition and no re-entrancy: acquiring waits until the lock is granted, ignoring
 * interrupts (the thread's interrupt status is kept), as {@code synchronized} does.
 *
 * <p>Waiting: a waiter spins a bounded number of times, by default 1,024 {@link Thread#onSpinWait()}
 * hints: a {@code PAUSE} costs from a few to about 150 cycles by processor, so that is a few to some
 * 50 microseconds, tens of times the sections these locks are for and far shorter than the time
 * slice of milliseconds a descheduled holder stays off its core. Then it parks, giving the core back.
 *
 * <p>Use: {@code lock.lock(); try { ... } finally { lock.unlock(); }}, by the same thread.
 */
public interface ShortLock {
  /** Waits until this thread holds the lock; never throws on contention or interrupt. */
  void lock();

  /**
   * Releases the lock held by this thread. What each implementation detects of an unlock by a
   * thread that does not hold the lock is stated on the implementation; it throws {@link
   * IllegalMonitorStateException} where it detects one.
   */
  void unlock();
}
