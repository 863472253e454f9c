package dev.memwall.core.operator;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An off-heap open-addressing hash table from fixed-width keys (tuples of {@code keyWidth} longs)
 * to dense group ids 0, 1, 2, ... in order of first appearance.
 *
 * <p>Layout: a power-of-two array of 8-byte slots, each {@code (tag << 32) | (group + 1)} (0 =
 * empty), where the tag is the top half of the key's hash and the home slot its top bits; probed
 * linearly and kept at most half full. The keys live row-wise (NSM) in a group-indexed array, so a
 * probe compares one contiguous tuple, and only when the tags agree: a collision costs no key read,
 * and growing re-places the slots from their tags alone (above {@value #FAST_GROWTH_SLOTS} slots
 * the table grows fourfold, so large tables are rebuilt rarely). Lookups for a whole chunk are made
 * in two passes, hashes first, so the slot loads of consecutive rows are independent and their
 * cache misses overlap; a row whose key equals the previous row's (input clustered on the key, as
 * lineitem on its order key) takes that row's group without a lookup.
 *
 * <p>Ownership: the creator closes it. Thread safety: none.
 */
final class GroupTable implements AutoCloseable {
  private static final ValueLayout.OfLong SLOT = ValueLayout.JAVA_LONG;
  /** Slots from which the table grows fourfold instead of twofold. */
  static final int FAST_GROWTH_SLOTS = 1 << 16;
  private static final int MAX_SLOT_BITS = 30;
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
  private final long[] entries = new long[dev.memwall.core.expr.Chunk.CAPACITY];
  /** Sum of the values {@link #touchHomeSlots} loaded; only keeps those loads alive. */
  private long touched;
  private OffHeapBuffer slotBuffer;
  private MemorySegment slots;
  private long mask;
  /** 64 minus the slot bits: a hash's home slot is {@code h >>> shift}. */
  private int shift;
  private int groups;

  GroupTable(EngineMemory memory, int keyWidth) {
    this.memory = memory;
    this.keyWidth = keyWidth;
    this.tuple = new long[keyWidth];
    this.keys = new OffHeapLongArray(memory, 16L * keyWidth);
    allocateSlots(6);
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
    long[] entries = this.entries;
    long sink = 0;
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      entries[k] = slots.getAtIndex(SLOT, hashes[k] >>> shift);
    }
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      long entry = entries[k];
      if (entry != 0 && (int) (entry >>> 32) == (int) (hashes[k] >>> 32)) {
        sink += keys.get((long) ((int) entry - 1) * keyWidth);
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
    int tag = (int) (h >>> 32);
    long slot = h >>> shift;
    while (true) {
      long entry = slots.getAtIndex(SLOT, slot);
      if (entry == 0) {
        int group = newGroup();
        for (int c = 0; c < keyWidth; c++) {
          keys.set((long) group * keyWidth + c, tuple[c]);
        }
        claim(slot, tag, group);
        return group;
      }
      if ((int) (entry >>> 32) == tag) {
        int group = (int) entry - 1;
        boolean equal = true;
        for (int c = 0; c < keyWidth && equal; c++) {
          equal = keys.get((long) group * keyWidth + c) == tuple[c];
        }
        if (equal) {
          return group;
        }
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
  private void claim(long slot, int tag, int group) {
    slots.setAtIndex(SLOT, slot, entry(tag, group));
    if ((long) groups * 2 > mask + 1L) {
      int bits = 64 - shift;
      int grownBits = bits + (mask + 1L >= FAST_GROWTH_SLOTS ? 2 : 1);
      if (grownBits > MAX_SLOT_BITS) {
        throw new IllegalStateException("group table over 2^" + (MAX_SLOT_BITS - 1) + " groups");
      }
      OffHeapBuffer old = slotBuffer;
      MemorySegment oldSlots = slots;
      allocateSlots(grownBits);
      try (old) {
        long capacity = oldSlots.byteSize() / Long.BYTES;
        for (long i = 0; i < capacity; i++) {
          long moved = oldSlots.getAtIndex(SLOT, i);
          if (moved != 0) {
            place(moved);
          }
        }
      }
    }
  }

  private static long entry(int tag, int group) {
    return ((long) tag << 32) | (group + 1L);
  }

  /** Puts {@code entry} in the first free slot from its tag's home slot on (the tag is the hash's top half). */
  private void place(long entry) {
    long slot = (entry >>> 32) >>> (shift - 32);
    while (slots.getAtIndex(SLOT, slot) != 0) {
      slot = (slot + 1) & mask;
    }
    slots.setAtIndex(SLOT, slot, entry);
  }

  private void allocateSlots(int bits) {
    slotBuffer = memory.allocate(8L << bits, Placement.HUGE_PAGES);
    slots = slotBuffer.segment();
    mask = (1L << bits) - 1;
    shift = 64 - bits;
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
