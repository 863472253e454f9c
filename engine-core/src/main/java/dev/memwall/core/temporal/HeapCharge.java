package dev.memwall.core.temporal;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import java.util.Arrays;

/**
 * The heap a layout holds, charged to its {@link EngineMemory}: every array grows through here,
 * which charges the added capacity before allocating it, so the charge is always the capacity of
 * the live arrays (8 bytes per long or reference, 4 per int; object headers are not counted).
 * A refused growth leaves the array, and the charge, as they were. Thread safety: none.
 */
final class HeapCharge {
  private final EngineMemory memory;
  private long charged;

  HeapCharge(EngineMemory memory) {
    this.memory = memory;
  }

  /** {@code array}, or a copy with room for at least {@code minLength} entries. */
  long[] grow(long[] array, int minLength) {
    if (array.length >= minLength) {
      return array;
    }
    int length = newLength(array.length, minLength);
    reserve(8L * (length - array.length));
    return Arrays.copyOf(array, length);
  }

  /** {@code array}, or a copy with room for at least {@code minLength} entries. */
  int[] grow(int[] array, int minLength) {
    if (array.length >= minLength) {
      return array;
    }
    int length = newLength(array.length, minLength);
    reserve(4L * (length - array.length));
    return Arrays.copyOf(array, length);
  }

  /** {@code array}, or a copy with room for at least {@code minLength} references. */
  long[][] grow(long[][] array, int minLength) {
    if (array.length >= minLength) {
      return array;
    }
    int length = newLength(array.length, minLength);
    reserve(8L * (length - array.length));
    return Arrays.copyOf(array, length);
  }

  /** Charges {@code bytes} more, naming the temporal layout when the budget refuses them. */
  void reserve(long bytes) {
    try {
      memory.reserveHeap(bytes);
    } catch (BudgetExceededException e) {
      throw e.in(TemporalLayout.OPERATOR, "append", "the layout keeps its versions on the heap");
    }
    charged += bytes;
  }

  /** Gives back {@code bytes} of an array dropped without a copy. */
  void release(long bytes) {
    memory.releaseHeap(bytes);
    charged -= bytes;
  }

  /** Bytes charged now. */
  long charged() {
    return charged;
  }

  /** Gives every charged byte back; the arrays must no longer be used. */
  void releaseAll() {
    memory.releaseHeap(charged);
    charged = 0;
  }

  private static int newLength(int length, int minLength) {
    long doubled = Math.max(4L, 2L * length);
    return (int) Math.min(Integer.MAX_VALUE - 8, Math.max(minLength, doubled));
  }
}
