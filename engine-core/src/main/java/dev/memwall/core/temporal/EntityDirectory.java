package dev.memwall.core.temporal;

import dev.memwall.core.hash.Hashing;

/**
 * The entities of a temporal table, shared by every layout: each surrogate gets a dense index in
 * the order it was first appended, found through an open-addressing table of (surrogate, index + 1)
 * slot pairs at most half full, and the time of its last append, which the next must exceed.
 * Adding an entity is two steps, {@link #prepare} (may be refused by the budget, changes nothing
 * visible) and {@link #commit}, so a layout that fails between them leaves no half-added entity.
 * Any long is a surrogate. Thread safety: none.
 */
final class EntityDirectory {
  private final HeapCharge charge;
  private long[] slots = new long[0];
  private int mask = -1;
  private long[] surrogates = new long[0];
  private long[] lastTimes = new long[0];
  private int size;

  EntityDirectory(HeapCharge charge) {
    this.charge = charge;
  }

  int size() {
    return size;
  }

  long surrogate(int entity) {
    return surrogates[entity];
  }

  long lastTime(int entity) {
    return lastTimes[entity];
  }

  void setLastTime(int entity, long time) {
    lastTimes[entity] = time;
  }

  /** The index of {@code surrogate}, or -1. */
  int find(long surrogate) {
    if (size == 0) {
      return -1;
    }
    int slot = home(surrogate);
    while (true) {
      long index = slots[2 * slot + 1];
      if (index == 0) {
        return -1;
      }
      if (slots[2 * slot] == surrogate) {
        return (int) index - 1;
      }
      slot = (slot + 1) & mask;
    }
  }

  /** Makes room for one more entity and returns the index it will get. */
  int prepare() {
    if (size == Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("a temporal table holds at most " + size + " entities");
    }
    surrogates = charge.grow(surrogates, size + 1);
    lastTimes = charge.grow(lastTimes, size + 1);
    if (2L * (size + 1) > (long) mask + 1) {
      rehash(Math.max(8, 2 * (mask + 1)));
    }
    return size;
  }

  /** Adds {@code surrogate}, absent, at the index {@link #prepare} returned. */
  void commit(long surrogate, long time) {
    surrogates[size] = surrogate;
    lastTimes[size] = time;
    put(surrogate, size);
    size++;
  }

  private void rehash(int slotCount) {
    charge.reserve(16L * slotCount);
    long[] old = slots;
    slots = new long[2 * slotCount];
    mask = slotCount - 1;
    charge.release(8L * old.length);
    for (int i = 0; i < size; i++) {
      put(surrogates[i], i);
    }
  }

  private void put(long surrogate, int index) {
    int slot = home(surrogate);
    while (slots[2 * slot + 1] != 0) {
      slot = (slot + 1) & mask;
    }
    slots[2 * slot] = surrogate;
    slots[2 * slot + 1] = index + 1L;
  }

  private int home(long surrogate) {
    return (int) (Hashing.mix64(surrogate) >>> 32) & mask;
  }
}
