package dev.memwall.core.operator;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An off-heap open-addressing hash table from fixed-width keys (tuples of {@code keyWidth} longs)
 * to dense group ids 0, 1, 2, ... in order of first appearance.
 *
 * <p>Layout: a power-of-two slot array of ints holding {@code group + 1} (0 = empty), probed
 * linearly and kept at most half full; the keys live row-wise (NSM) in a group-indexed array, so
 * a probe compares one contiguous tuple. Lookups for a whole chunk are made in two passes, hashes
 * first, so the slot loads of consecutive rows are independent and their cache misses overlap; a
 * row whose key equals the previous row's (input clustered on the key, as lineitem on its order
 * key) takes that row's group without a lookup.
 *
 * <p>Ownership: the creator closes it. Thread safety: none.
 */
final class GroupTable implements AutoCloseable {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  /**
   * Groups above which the table is assumed to outgrow L1 and lookups prefetch (see
   * {@link #touchHomeSlots}); the system property {@code memwall.aggregation.prefetch=false} turns
   * prefetching off, for benchmarks that compare both.
   */
  private static final int PREFETCH_MIN_GROUPS =
      Boolean.parseBoolean(System.getProperty("memwall.aggregation.prefetch", "true")) ? 4096 : Integer.MAX_VALUE;

  private final EngineMemory memory;
  private final int keyWidth;
  private final OffHeapLongArray keys;
  private final long[] hashes = new long[dev.memwall.core.expr.Chunk.CAPACITY];
  private final long[] tuple;
  private final int[] entries = new int[dev.memwall.core.expr.Chunk.CAPACITY];
  /** Sum of the values {@link #touchHomeSlots} loaded; only keeps those loads alive. */
  private long touched;
  private OffHeapBuffer slotBuffer;
  private MemorySegment slots;
  private int mask;
  private int groups;

  GroupTable(EngineMemory memory, int keyWidth) {
    this.memory = memory;
    this.keyWidth = keyWidth;
    this.tuple = new long[keyWidth];
    this.keys = new OffHeapLongArray(memory, 16L * keyWidth);
    allocateSlots(64);
  }

  int groups() {
    return groups;
  }

  int keyWidth() {
    return keyWidth;
  }

  /** Key component {@code component} of group {@code group}. */
  long key(int group, int component) {
    return keys.get((long) group * keyWidth + component);
  }

  /**
   * Finds or creates the group of each listed row.
   *
   * @param columns key components by component, then by position {@code k}
   * @param positions the rows to look up
   * @param n how many entries of {@code positions} to use
   * @param groupIds receives the group id of row {@code k} at index {@code k}
   */
  void findOrInsert(long[][] columns, int[] positions, int n, int[] groupIds) {
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      long h = 0;
      for (long[] column : columns) {
        h = mix(h ^ column[k]);
      }
      hashes[k] = h;
    }
    if (groups > PREFETCH_MIN_GROUPS) {
      touchHomeSlots(positions, n);
    }
    long[] tuple = this.tuple;
    int previous = -1;
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      if (previous >= 0 && hashes[k] == hashes[previous] && sameKey(columns, k, previous)) {
        groupIds[k] = groupIds[previous]; // a run of equal keys (clustered input) needs one lookup
        continue;
      }
      for (int c = 0; c < keyWidth; c++) {
        tuple[c] = columns[c][k];
      }
      groupIds[k] = findOrInsert(tuple, hashes[k]);
      previous = k;
    }
  }

  private static boolean sameKey(long[][] columns, int k, int other) {
    for (long[] column : columns) {
      if (column[k] != column[other]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Group prefetching, as the JVM allows it (it has no prefetch instruction): loads each row's home
   * slot and the first key component of the group there in two tight loops of independent loads,
   * so their cache misses overlap instead of being taken one after another inside the dependent
   * probe loop, which then finds those lines in cache. The loaded values are folded into
   * {@link #touched} so the loads are not eliminated as dead code.
   */
  private void touchHomeSlots(int[] positions, int n) {
    int[] entries = this.entries;
    long sink = 0;
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      entries[k] = slots.getAtIndex(INT, (int) hashes[k] & mask);
    }
    for (int i = 0; i < n; i++) {
      int entry = entries[positions[i]];
      if (entry != 0) {
        sink += keys.get((long) (entry - 1) * keyWidth);
      }
    }
    touched += sink;
  }

  /** Finds or creates the group of {@code tuple}. */
  int findOrInsert(long[] tuple) {
    long h = 0;
    for (long component : tuple) {
      h = mix(h ^ component);
    }
    return findOrInsert(tuple, h);
  }

  private int findOrInsert(long[] tuple, long h) {
    int slot = (int) h & mask;
    while (true) {
      int entry = slots.getAtIndex(INT, slot);
      if (entry == 0) {
        int group = newGroup();
        for (int c = 0; c < keyWidth; c++) {
          keys.set((long) group * keyWidth + c, tuple[c]);
        }
        claim(slot, group);
        return group;
      }
      int group = entry - 1;
      boolean equal = true;
      for (int c = 0; c < keyWidth && equal; c++) {
        equal = keys.get((long) group * keyWidth + c) == tuple[c];
      }
      if (equal) {
        return group;
      }
      slot = (slot + 1) & mask;
    }
  }

  private int newGroup() {
    int group = groups++;
    keys.ensureCapacity((long) groups * keyWidth);
    return group;
  }

  /** Points {@code slot} at {@code group}, whose key is written, and grows the slots when half full. */
  private void claim(int slot, int group) {
    slots.setAtIndex(INT, slot, group + 1);
    if ((long) groups * 2 > mask + 1L) {
      long capacity = (mask + 1L) << 1;
      if (capacity > 1L << 30) {
        throw new IllegalStateException("group table over 2^29 groups");
      }
      slotBuffer.close();
      allocateSlots((int) capacity);
      for (int g = 0; g < groups; g++) {
        place(g, hashOf(g));
      }
    }
  }

  private long hashOf(int group) {
    long h = 0;
    long base = (long) group * keyWidth;
    for (int c = 0; c < keyWidth; c++) {
      h = mix(h ^ keys.get(base + c));
    }
    return h;
  }

  private void place(int group, long h) {
    int slot = (int) h & mask;
    while (slots.getAtIndex(INT, slot) != 0) {
      slot = (slot + 1) & mask;
    }
    slots.setAtIndex(INT, slot, group + 1);
  }

  private void allocateSlots(int capacity) {
    slotBuffer = memory.allocate((long) capacity * Integer.BYTES);
    slots = slotBuffer.segment();
    mask = capacity - 1;
  }

  static long mix(long x) {
    x *= 0x9E3779B97F4A7C15L;
    return x ^ (x >>> 29);
  }

  @Override
  public void close() {
    keys.close();
    slotBuffer.close();
  }
}
