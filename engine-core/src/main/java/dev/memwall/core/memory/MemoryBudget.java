package dev.memwall.core.memory;

import java.util.Objects;
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
 * <p>A budget may also {@linkplain #growing grow}: when a reservation does not fit, it asks a host's
 * memory manager ({@link Growth}) for the rest before refusing, and the host may take room back that no
 * reservation holds ({@link #shrink}). So memwall inside a host holds what its operators use, asked for as
 * they need it, rather than a fixed share taken up front.
 *
 * <p>Thread safety: all methods may be called from any thread; reservations are lock-free.
 */
public final class MemoryBudget {
  /**
   * Where a {@linkplain #growing growing} budget gets room beyond its limit: the host's memory manager.
   *
   * <p>Called on the thread whose reservation did not fit, with no lock of the budget's held; concurrent
   * reservations may each ask.
   */
  @FunctionalInterface
  public interface Growth {
    /**
     * Asks for {@code bytes} more; returns the bytes granted, which become the budget's: 0 for none, and
     * possibly less or more than asked (a reservation that still does not fit is refused).
     */
    long grant(long bytes);

    /**
     * The most the host may still grant (such as its limit less what it has granted): an upper bound,
     * which {@link #availableBytes} counts so that operators that size their shares from it see the room
     * they may grow into, not only what has been granted so far. 0 by default: nothing promised.
     */
    default long growableBytes() {
      return 0;
    }
  }

  private final String name;
  private final AtomicLong limitBytes;
  private final Growth growth;
  private final MemoryBudget parent;
  private final AtomicLong reservedBytes = new AtomicLong();
  private final AtomicLong peakBytes = new AtomicLong();
  /**
   * Bytes reserved all the way up the chain: {@link #reservedBytes} less the reservations still
   * waiting for a parent's answer, so that a refused one never shows in the peak.
   */
  private final AtomicLong grantedBytes = new AtomicLong();

  private MemoryBudget(String name, long limitBytes, Growth growth, MemoryBudget parent) {
    if (limitBytes < 0) {
      throw new IllegalArgumentException("memory budget '" + name + "' needs a limit >= 0, got " + limitBytes);
    }
    this.name = name;
    this.limitBytes = new AtomicLong(limitBytes);
    this.growth = growth;
    this.parent = parent;
  }

  /** A root budget of at most {@code limitBytes}. */
  public static MemoryBudget of(String name, long limitBytes) {
    return new MemoryBudget(name, limitBytes, null, null);
  }

  /** A root budget with no practical limit; allocations are still counted. */
  public static MemoryBudget unbounded(String name) {
    return new MemoryBudget(name, Long.MAX_VALUE, null, null);
  }

  /**
   * A root budget of {@code limitBytes} to begin with that asks {@code growth} for the rest of a
   * reservation that does not fit, and keeps what it is granted until {@linkplain #shrink shrunk}.
   */
  public static MemoryBudget growing(String name, long limitBytes, Growth growth) {
    return new MemoryBudget(name, limitBytes, Objects.requireNonNull(growth, "growth"), null);
  }

  /** A budget of at most {@code limitBytes} whose reservations also count against this one. */
  public MemoryBudget child(String childName, long limitBytes) {
    return new MemoryBudget(childName, limitBytes, null, this);
  }

  /**
   * Charges {@code bytes} to this budget and its ancestors; a growing budget asks its {@link Growth} for
   * what does not fit first.
   *
   * @throws BudgetExceededException naming the budget that would be exceeded; nothing is charged then
   */
  public void reserve(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("cannot reserve a negative size: " + bytes);
    }
    while (true) {
      long before = reservedBytes.get();
      long now = before + bytes;
      long limit = limitBytes.get();
      if (now > limit || now < 0) {
        if (now >= 0 && growth != null && grow(now - limit)) {
          continue;
        }
        throw new BudgetExceededException(name, bytes, before, limit);
      }
      if (reservedBytes.compareAndSet(before, now)) {
        if (now <= limitBytes.get()) {
          break;
        }
        reservedBytes.addAndGet(-bytes); // a shrink lowered the limit after it was read: try again
      }
    }
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

  /** Asks the growth for {@code shortfall}; whether it granted at least that (what it granted is kept). */
  private boolean grow(long shortfall) {
    long granted = growth.grant(shortfall);
    if (granted < 0) {
      throw new IllegalStateException("memory budget '" + name + "' was granted a negative size: " + granted);
    }
    limitBytes.addAndGet(granted);
    return granted >= shortfall;
  }

  /**
   * Lowers the limit by up to {@code bytes} of the room no reservation holds, for a host taking memory
   * back; returns by how much (0 when every byte is reserved).
   */
  public long shrink(long bytes) {
    while (true) {
      long before = reservedBytes.get();
      long give = Math.min(bytes, limitBytes.get() - before);
      if (give <= 0) {
        return 0;
      }
      // the room is held while the limit drops, so no reservation takes it meanwhile
      if (reservedBytes.compareAndSet(before, before + give)) {
        limitBytes.addAndGet(-give);
        reservedBytes.addAndGet(-give);
        return give;
      }
    }
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

  /** The limit now: the initial one plus what a growing budget was granted, less what it gave back. */
  public long limitBytes() {
    return limitBytes.get();
  }

  /**
   * Bytes that could be reserved right now: the least room left in this budget and its ancestors
   * (a snapshot; other reservations may take it first). A growing budget's room includes what its host
   * may still grant ({@link Growth#growableBytes}), which a reservation may yet be refused.
   */
  public long availableBytes() {
    long room = Math.max(0, limitBytes.get() - reservedBytes.get());
    if (growth != null) {
      long growable = Math.max(0, growth.growableBytes());
      room = room > Long.MAX_VALUE - growable ? Long.MAX_VALUE : room + growable;
    }
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
        + (limitBytes.get() == Long.MAX_VALUE ? "unbounded" : limitBytes.get()) + " bytes]";
  }
}
