package dev.memwall.core.frequent;

import dev.memwall.core.hash.Hashing;
import java.util.Arrays;

/**
 * The monitored-element lookup of a {@link SpaceSaving} summary: an open-addressing table from a
 * monitored key to its counter, the software stand-in for the CAM of Das, Agrawal and El Abbadi
 * 2008. Each slot is two adjacent longs, the key and its counter plus one (zero: empty), so a probe
 * reads one cache line for both; slots are chosen by {@link Hashing#mix64} and probed linearly, and
 * a removal shifts the following entries back (no tombstones), so a table that replaces its keys
 * forever never degrades. The table has a power of two of slots, at least twice as many as counters:
 * it is at most half full and a probe ends within a few slots; {@link SummarySizing} gives it more
 * where its cache level has room.
 *
 * <p>Bad input: any long is a key ({@code 0}, {@link Long#MIN_VALUE} included). Thread safety:
 * none; the summary's one writer owns it.
 */
final class CounterIndex {
  private static final int EMPTY = 0;
  /** Bytes a slot takes: the key and the counter, two longs. */
  static final int SLOT_BYTES = 2 * Long.BYTES;

  /** Key at {@code 2 * slot}, counter + 1 at {@code 2 * slot + 1}. */
  private final long[] slots;
  private final int mask;

  /** A table of {@code slots} slots, a power of two larger than the counters it will hold. */
  CounterIndex(int slots) {
    this.slots = new long[2 * slots];
    this.mask = slots - 1;
  }

  /** The least slots for {@code counters} counters: the power of two at least twice as large. */
  static int slotsFor(int counters) {
    return Integer.highestOneBit(Math.max(1, counters) * 2 - 1) << 1;
  }

  /** Bytes a table of {@code slots} slots holds. */
  static long bytesForSlots(int slots) {
    return (long) SLOT_BYTES * slots;
  }

  /** The counter monitoring {@code key}, or -1. */
  int get(long key) {
    int slot = (int) (Hashing.mix64(key) >>> 32) & mask;
    while (true) {
      long counter = slots[2 * slot + 1];
      if (counter == EMPTY) {
        return -1;
      }
      if (slots[2 * slot] == key) {
        return (int) counter - 1;
      }
      slot = (slot + 1) & mask;
    }
  }

  /** Maps {@code key}, which is not in the table, to {@code counter}. */
  void put(long key, int counter) {
    int slot = (int) (Hashing.mix64(key) >>> 32) & mask;
    while (slots[2 * slot + 1] != EMPTY) {
      slot = (slot + 1) & mask;
    }
    slots[2 * slot] = key;
    slots[2 * slot + 1] = counter + 1L;
  }

  /** Removes {@code key}, which is in the table, shifting the entries after it back into the gap. */
  void remove(long key) {
    int slot = (int) (Hashing.mix64(key) >>> 32) & mask;
    while (slots[2 * slot] != key || slots[2 * slot + 1] == EMPTY) {
      slot = (slot + 1) & mask;
    }
    int gap = slot;
    int next = (gap + 1) & mask;
    while (slots[2 * next + 1] != EMPTY) {
      int home = (int) (Hashing.mix64(slots[2 * next]) >>> 32) & mask;
      // the entry at next may move to gap if its home is not within (gap, next], cyclically
      if (((next - home) & mask) >= ((next - gap) & mask)) {
        slots[2 * gap] = slots[2 * next];
        slots[2 * gap + 1] = slots[2 * next + 1];
        gap = next;
      }
      next = (next + 1) & mask;
    }
    slots[2 * gap] = 0;
    slots[2 * gap + 1] = EMPTY;
  }

  /** Empties the table. */
  void clear() {
    Arrays.fill(slots, 0);
  }
}
