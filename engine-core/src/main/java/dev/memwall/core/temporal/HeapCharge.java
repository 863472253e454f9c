package dev.memwall.core.temporal;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import java.util.Arrays;

/**
 * The heap a layout holds, charged to its {@link EngineMemory}: every array grows through here,
 * which charges the added capacity before allocating it, so the charge is always the capacity of
 * the live arrays (8 bytes per long or reference, 4 per int; object headers are not counted).
 * A refused growth leaves the array, and the charge, as they were. Public for the stores of other
 * modules (a page-file table's catalog), whose refusals then name the temporal layout too. Thread
 * safety: none.
 */
public final class HeapCharge {
  private final EngineMemory memory;
  private long charged;

  public HeapCharge(EngineMemory memory) {
    this.memory = memory;
  }

  /** {@code array}, or a copy with room for at least {@code minLength} entries. */
  public long[] grow(long[] array, int minLength) {
    return array.length >= minLength ? array : Arrays.copyOf(array, chargeGrowth(array.length, minLength, Long.BYTES));
  }

  /** {@code array}, or a copy with room for at least {@code minLength} entries. */
  public int[] grow(int[] array, int minLength) {
    return array.length >= minLength ? array : Arrays.copyOf(array, chargeGrowth(array.length, minLength, Integer.BYTES));
  }

  /** {@code array}, or a copy with room for at least {@code minLength} references (8 bytes each). */
  public long[][] grow(long[][] array, int minLength) {
    return array.length >= minLength ? array : Arrays.copyOf(array, chargeGrowth(array.length, minLength, Long.BYTES));
  }

  /** The new length of an array of {@code length} that needs {@code minLength}, its added bytes charged. */
  private int chargeGrowth(int length, int minLength, int bytesEach) {
    long doubled = Math.max(4L, 2L * length);
    int grown = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(minLength, doubled));
    reserve((long) bytesEach * (grown - length));
    return grown;
  }

  /** Charges {@code bytes} more, naming the temporal layout when the budget refuses them. */
  public void reserve(long bytes) {
    try {
      memory.reserveHeap(bytes);
    } catch (BudgetExceededException e) {
      throw e.in(TemporalLayout.OPERATOR, "append", "the layout keeps its versions on the heap");
    }
    charged += bytes;
  }

  /** Gives back {@code bytes} of an array dropped without a copy. */
  public void release(long bytes) {
    memory.releaseHeap(bytes);
    charged -= bytes;
  }

  /** Bytes charged now. */
  public long charged() {
    return charged;
  }

  /** Gives every charged byte back; the arrays must no longer be used. */
  public void releaseAll() {
    memory.releaseHeap(charged);
    charged = 0;
  }
}
