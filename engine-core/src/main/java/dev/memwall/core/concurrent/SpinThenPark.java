package dev.memwall.core.concurrent;

import java.util.concurrent.locks.LockSupport;

/**
 * The waiting policy the short locks share: spin with {@link Thread#onSpinWait()} a bounded number
 * of times, then park for a bounded, exponentially growing time. Spinning is right while the holder
 * runs (it leaves within a microsecond); parking is right once it has probably been descheduled, since
 * a spinning waiter then burns the very core the holder needs to finish.
 *
 * <p>Thread safety: one instance per waiting thread and wait; not shared.
 */
final class SpinThenPark {
  /** Spins before a waiter parks; why this many is on {@link ShortLock}. */
  static final int DEFAULT_SPINS = 1 << 10;

  /** The first park. A park and its wake-up cost microseconds, so shorter ones buy nothing. */
  static final long MIN_PARK_NANOS = 2_000;

  /**
   * The longest park: a waiter checks the lock at least this often once parked, so a lock freed
   * while it sleeps is at most this late to be noticed; it is far under a time slice.
   */
  static final long MAX_PARK_NANOS = 500_000;

  private final int spinLimit;
  private int spins;
  private long parkNanos = MIN_PARK_NANOS;
  private boolean interrupted;

  SpinThenPark(int spinLimit) {
    this.spinLimit = spinLimit;
  }

  /** Checks a spin limit given to a lock's constructor. */
  static int checkSpinLimit(int spinLimit) {
    if (spinLimit < 0) {
      throw new IllegalArgumentException("spin limit must not be negative: " + spinLimit);
    }
    return spinLimit;
  }

  /** Whether the waiter may still spin; counts the spin and hints the processor if so. */
  boolean spin() {
    if (spins < spinLimit) {
      spins++;
      Thread.onSpinWait();
      return true;
    }
    return false;
  }

  /** One bounded park after the spins ran out, each twice as long as the last up to the bound. */
  void backOff(Object blocker) {
    if (!spin()) {
      LockSupport.parkNanos(blocker, parkNanos);
      parkNanos = Math.min(parkNanos << 1, MAX_PARK_NANOS);
      noteInterrupt();
    }
  }

  /**
   * Clears and remembers an interrupt, which would otherwise make every later park return at once
   * and turn the wait into a busy loop.
   */
  void noteInterrupt() {
    if (Thread.interrupted()) {
      interrupted = true;
    }
  }

  /** Restores an interrupt taken while waiting, once the lock is held. */
  void restoreInterrupt() {
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
