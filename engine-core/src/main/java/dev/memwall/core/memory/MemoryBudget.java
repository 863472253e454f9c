package dev.memwall.core.memory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A named upper bound on the off-heap bytes a part of the engine may hold at once.
 *
 * <p>Every engine allocation, Arrow buffer or raw region, {@linkplain #reserve reserves} its size
 * here before memory is touched and {@linkplain #release releases} it when freed; so do the heap
 * arrays of an operator that grow with the data ({@link EngineMemory#reserveHeap}). A budget may
 * have a parent: a reservation is charged to every budget up the chain, so a query's budget can
 * sit inside the process's.
 *
 * <p>Thread safety: all methods may be called from any thread; reservations are lock-free.
 */
public final class MemoryBudget {
  private final String name;
  private final long limitBytes;
  private final MemoryBudget parent;
  private final AtomicLong reservedBytes = new AtomicLong();
  private final AtomicLong peakBytes = new AtomicLong();
  /**
   * Bytes reserved all the way up the chain: {@link #reservedBytes} less the reservations still
   * waiting for a parent's answer, so that a refused one never shows in the peak.
   */
  private final AtomicLong grantedBytes = new AtomicLong();

  private MemoryBudget(String name, long limitBytes, MemoryBudget parent) {
    if (limitBytes < 0) {
      throw new IllegalArgumentException("memory budget '" + name + "' needs a limit >= 0, got " + limitBytes);
    }
    this.name = name;
    this.limitBytes = limitBytes;
    this.parent = parent;
  }

  /** A root budget of at most {@code limitBytes}. */
  public static MemoryBudget of(String name, long limitBytes) {
    return new MemoryBudget(name, limitBytes, null);
  }

  /** A root budget with no practical limit; allocations are still counted. */
  public static MemoryBudget unbounded(String name) {
    return new MemoryBudget(name, Long.MAX_VALUE, null);
  }

  /** A budget of at most {@code limitBytes} whose reservations also count against this one. */
  public MemoryBudget child(String childName, long limitBytes) {
    return new MemoryBudget(childName, limitBytes, this);
  }

  /**
   * Charges {@code bytes} to this budget and its ancestors.
   *
   * @throws BudgetExceededException naming the budget that would be exceeded; nothing is charged then
   */
  public void reserve(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("cannot reserve a negative size: " + bytes);
    }
    long now;
    long before;
    do {
      before = reservedBytes.get();
      now = before + bytes;
      if (now > limitBytes || now < 0) {
        throw new BudgetExceededException(name, bytes, before, limitBytes);
      }
    } while (!reservedBytes.compareAndSet(before, now));
    if (parent != null) {
      try {
        parent.reserve(bytes);
      } catch (BudgetExceededException e) {
        reservedBytes.addAndGet(-bytes);
        throw e;
      }
    }
    long granted = grantedBytes.addAndGet(bytes); // only once granted all the way up
    peakBytes.accumulateAndGet(granted, Math::max);
  }

  /** Returns {@code bytes} previously {@linkplain #reserve reserved}. */
  public void release(long bytes) {
    // granted before reserved: reserve raises reserved first, so granted never exceeds reserved (and the
    // limit), even while a reservation takes the room this release gives back
    grantedBytes.addAndGet(-bytes);
    long now = reservedBytes.addAndGet(-bytes);
    if (now < 0) {
      reservedBytes.addAndGet(bytes);
      grantedBytes.addAndGet(bytes);
      throw new IllegalStateException("memory budget '" + name + "' released " + bytes + " bytes more than it held");
    }
    if (parent != null) {
      parent.release(bytes);
    }
  }

  public String name() {
    return name;
  }

  public long limitBytes() {
    return limitBytes;
  }

  /**
   * Bytes that could be reserved right now: the least room left in this budget and its ancestors
   * (a snapshot; other reservations may take it first).
   */
  public long availableBytes() {
    long room = Math.max(0, limitBytes - reservedBytes.get());
    return parent == null ? room : Math.min(room, parent.availableBytes());
  }

  /** Bytes reserved right now. */
  public long reservedBytes() {
    return reservedBytes.get();
  }

  /** The most bytes ever reserved at once. */
  public long peakBytes() {
    return peakBytes.get();
  }

  @Override
  public String toString() {
    return "MemoryBudget[" + name + ": " + reservedBytes.get() + " of "
        + (limitBytes == Long.MAX_VALUE ? "unbounded" : limitBytes) + " bytes]";
  }
}
