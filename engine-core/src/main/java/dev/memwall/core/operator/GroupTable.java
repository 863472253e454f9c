package dev.memwall.core.operator;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.memory.BudgetExceededException;
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
 * the table grows fourfold, so large tables are rebuilt rarely). While the key is a single one and
 * every key so far is non-null and fits 32 bits, the slots hold the key itself in place of the tag
 * ({@link #keyInSlot()}): a lookup that finds its key in a slot is done without reading the keys,
 * so a large table costs one cache miss a row instead of two. The first null or wider key turns
 * this off and re-places the slots by their tags. Lookups for a whole chunk are made
 * in two passes, hashes first, so the slot loads of consecutive rows are independent and their
 * cache misses overlap; a row whose key equals the previous row's (input clustered on the key, as
 * lineitem on its order key) takes that row's group without a lookup.
 *
 * <p>Keys that are dense integers (customer keys 1 to 150,000) get a second index besides the
 * slots: once the slots outgrow {@value #DIRECT_MIN_SLOTS} slots in key-in-slot mode, and the keys
 * span at most as many values as there are slots, an array of 4-byte group ids indexed by key minus
 * the least key ({@link #directlyIndexed()}), at most half the slots' size. A lookup of a key in its
 * range reads one entry of it and no slot; the slots are still written for every new group, so a key
 * outside the range, or a lookup once the index is gone, takes them as before. Past the last cache
 * (where the slots of such a table lie) that is one miss of a smaller, denser array instead, or none
 * when the array fits the cache and the slots do not. The index is made again, for the keys' range
 * then, whenever the slots grow; a refused allocation leaves the table without it.
 *
 * <p>Ordered input needs no slots at all: while a single integral key (no null) arrives in strictly
 * increasing runs, as lineitem's order key does in a worker's morsels, every new run is a new group
 * and is only appended ({@link #ordered()}); the slots are built from the groups the first time a
 * key breaks the order or a lookup is asked for. An ordered merge finds key ranges in the groups by
 * {@link #firstGroupAtLeast}.
 *
 * <p>Ownership: the creator closes it. Thread safety: none.
 */
final class GroupTable implements AutoCloseable {
  private static final ValueLayout.OfLong SLOT = ValueLayout.JAVA_LONG;
  /** Slots from which the table grows fourfold instead of twofold. */
  static final int FAST_GROWTH_SLOTS = 1 << 16;
  private static final int MAX_SLOT_BITS = 30;
  /** Slots from which a table of dense keys gets the direct index (see the class comment): 1 MiB of slots. */
  static final int DIRECT_MIN_SLOTS = 1 << 17;
  private static final ValueLayout.OfInt DIRECT_ENTRY = ValueLayout.JAVA_INT;
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
  private final int[] heads = new int[dev.memwall.core.expr.Chunk.CAPACITY];
  /** Run heads the direct index did not settle, for the slots to look up. */
  private final int[] pending = new int[dev.memwall.core.expr.Chunk.CAPACITY];
  /** Sum of the values {@link #touchHomeSlots} loaded; only keeps those loads alive. */
  private long touched;
  private OffHeapBuffer slotBuffer;
  private MemorySegment slots;
  private long mask;
  /** 64 minus the slot bits: a hash's home slot is {@code h >>> shift}. */
  private int shift;
  private int groups;
  /** Whether the slots hold every group; while false, lookups first build them. */
  private boolean indexed;
  /** Whether every group was created in strictly increasing order of its single, non-null key. */
  private boolean ordered;
  /** Whether the slots hold the keys themselves: one key, and every key so far non-null and within 32 bits. */
  private boolean keyInSlot;
  /** The direct index (see the class comment), or null; entry {@code key - directBase} is group + 1, 0 for none. */
  private OffHeapBuffer directBuffer;
  private MemorySegment direct;
  private long directBase;
  private long directSpan;

  GroupTable(EngineMemory memory, int keyWidth) {
    this.memory = memory;
    this.keyWidth = keyWidth;
    this.tuple = new long[keyWidth];
    this.keys = new OffHeapLongArray(memory, 16L * keyWidth);
    try {
      allocateSlots(6);
    } catch (RuntimeException | Error e) {
      keys.close(); // the budget refused the slots: free the keys too
      throw e;
    }
    this.ordered = keyWidth == 2; // one key and its null mask
    this.keyInSlot = keyWidth == 2;
    this.indexed = !ordered;
  }

  /** Whether every group so far came in strictly increasing order of its single key, and the table has no slots. */
  boolean ordered() {
    return ordered;
  }

  int groups() {
    return groups;
  }

  /**
   * Drops every group but keeps the memory: the keys' array and the slots stay at their grown sizes.
   * A table that had built its slots keeps using them (building them again would need new ones
   * beside the old); one still in key order stays so until a key breaks it.
   */
  void clear() {
    groups = 0;
    slots.fill((byte) 0);
    if (direct != null) {
      direct.fill((byte) 0);
    }
    keyInSlot = keyWidth == 2;
    ordered = !indexed && keyWidth == 2;
  }

  /** Off-heap bytes the table holds: its keys, its slots and its direct index. */
  long footprintBytes() {
    return keys.capacity() * Long.BYTES + slots.byteSize() + (direct == null ? 0 : direct.byteSize());
  }

  /** Whether lookups of keys in a range go through the direct index (see the class comment). */
  boolean directlyIndexed() {
    return direct != null;
  }

  /** Whether the slots hold the keys themselves instead of tags (see the class comment). */
  boolean keyInSlot() {
    return keyInSlot;
  }

  int keyWidth() {
    return keyWidth;
  }

  /**
   * Every group's key tuple, row-wise: component {@code c} of group {@code g} is long
   * {@code g * keyWidth() + c}; valid until the next group is added.
   */
  MemorySegment keys() {
    return keys.segment();
  }

  /** Key component {@code component} of group {@code group}. */
  long key(int group, int component) {
    return keys.get((long) group * keyWidth + component);
  }

  /**
   * While {@link #ordered()}: the first group from {@code from} on whose key is at least
   * {@code key} ({@link #groups()} if none), by galloping then binary search, so a near answer is
   * found in few steps.
   */
  int firstGroupAtLeast(long key, int from) {
    int low = from;
    int step = 1;
    while (low + step < groups && key(low + step, 0) < key) {
      low += step;
      step <<= 1;
    }
    int high = Math.min(groups, low + step);
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (key(middle, 0) < key) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
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
    // A run of equal keys (clustered input, as lineitem on its order key) is looked up once, by its
    // first row: only run heads are hashed, prefetched and looked up; the others take their group.
    int[] heads = this.heads;
    int m = 0;
    int previous = -1;
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      if (previous < 0 || !sameKey(columns, k, previous)) {
        heads[m++] = k;
        previous = k;
      }
    }
    int before = groups;
    boolean wasOrdered = ordered;
    boolean wasKeyInSlot = keyInSlot;
    int first = ordered ? appendInOrder(columns, heads, m, groupIds) : 0;
    if (first < m) {
      try {
        ensureIndexed(m - first);
      } catch (RuntimeException | Error e) {
        // the slots for the groups appended in order were refused: forget those groups, so that the
        // table is as before this call (see reserve)
        groups = before;
        ordered = wasOrdered;
        keyInSlot = wasKeyInSlot;
        throw e;
      }
      int[] lookups = heads;
      int from = first;
      int to = m;
      if (direct != null) {
        lookups = pending;
        from = 0;
        to = lookUpDirectly(columns, heads, first, m, groupIds);
      }
      for (int i = from; i < to; i++) {
        int k = lookups[i];
        long h = 0;
        for (long[] column : columns) {
          h = mix(h ^ column[k]);
        }
        hashes[k] = h;
      }
      if (groups > PREFETCH_MIN_GROUPS) {
        touchHomeSlots(lookups, from, to);
      }
      long[] tuple = this.tuple;
      for (int i = from; i < to; i++) {
        int k = lookups[i];
        for (int c = 0; c < keyWidth; c++) {
          tuple[c] = columns[c][k];
        }
        groupIds[k] = findOrInsert(tuple, hashes[k]);
      }
    }
    if (m < n) {
      int group = -1;
      for (int i = 0, h = 0; i < n; i++) {
        int k = positions[i];
        if (h < m && heads[h] == k) {
          group = groupIds[k];
          h++;
        } else {
          groupIds[k] = group;
        }
      }
    }
  }

  /**
   * Settles through the direct index the run heads {@code heads[from, to)} whose keys it holds;
   * writes the others to {@link #pending} and returns how many.
   */
  private int lookUpDirectly(long[][] columns, int[] heads, int from, int to, int[] groupIds) {
    long[] values = columns[0];
    long[] nullMasks = columns[1];
    int unsettled = 0;
    for (int i = from; i < to; i++) {
      int k = heads[i];
      long at = directEntryOf(values[k], nullMasks[k]);
      int entry = at >= 0 ? direct.getAtIndex(DIRECT_ENTRY, at) : 0;
      if (entry != 0) {
        groupIds[k] = entry - 1;
      } else {
        pending[unsettled++] = k;
      }
    }
    return unsettled;
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
  private void touchHomeSlots(int[] positions, int from, int n) {
    long[] entries = this.entries;
    long sink = 0;
    for (int i = from; i < n; i++) {
      int k = positions[i];
      entries[k] = slots.getAtIndex(SLOT, hashes[k] >>> shift);
    }
    if (keyInSlot) {
      return; // a slot holding its key needs no key read to be confirmed
    }
    for (int i = from; i < n; i++) {
      int k = positions[i];
      long entry = entries[k];
      if (entry != 0 && (int) (entry >>> 32) == (int) (hashes[k] >>> 32)) {
        sink += keys.get((long) ((int) entry - 1) * keyWidth);
      }
    }
    touched += sink;
  }

  /**
   * While the table is ordered: appends a group for each run head whose key is larger than every
   * key before it (a head equal to the last key continues the last group); returns how many heads
   * were settled so (all of them, or up to the first that breaks the order, after which the table is
   * no longer ordered).
   */
  private int appendInOrder(long[][] columns, int[] heads, int m, int[] groupIds) {
    long[] values = columns[0];
    long[] nullMasks = columns[1];
    for (int i = 0; i < m; i++) {
      int k = heads[i];
      long key = values[k];
      long last = groups > 0 ? keys.get((long) (groups - 1) * 2) : 0;
      if (groups > 0 && key == last && nullMasks[k] == 0) {
        groupIds[k] = groups - 1; // the previous chunk's last run goes on
        continue;
      }
      if (breaksOrder(key, nullMasks[k], last)) {
        ordered = false;
        return i;
      }
      int group = newGroup();
      keys.set(2L * group, key);
      keys.set(2L * group + 1, 0);
      keyInSlot &= key == (int) key;
      groupIds[k] = group;
    }
    return m;
  }

  /**
   * While {@link #ordered()}: whether a key of a single-key table (its value and null mask; a key
   * equal to the last group's, not null, continues that group) breaks the order: a null one, or one
   * below the last group's.
   */
  boolean breaksOrder(long key, long nullMask) {
    return breaksOrder(key, nullMask, groups > 0 ? keys.get((long) (groups - 1) * 2) : 0);
  }

  /** {@link #breaksOrder(long, long)} given the last group's key ({@code last}, read by the caller). */
  private boolean breaksOrder(long key, long nullMask, long last) {
    return nullMask != 0 || (groups > 0 && key < last);
  }

  /**
   * Builds the slots from the groups if they were created without (ordered), with room for
   * {@code extra} more groups before the slots grow; a refused allocation leaves the table as it was.
   */
  private void ensureIndexed(int extra) {
    if (indexed) {
      return;
    }
    int bits = Math.max(6, 64 - Long.numberOfLeadingZeros(Math.max(1, 2L * (groups + extra)) - 1) + 1);
    if (bits > MAX_SLOT_BITS) {
      throw new IllegalStateException("group table over 2^" + (MAX_SLOT_BITS - 1) + " groups");
    }
    OffHeapBuffer old = slotBuffer;
    allocateSlots(bits);
    old.close();
    ordered = false;
    indexed = true;
    placeAllGroups();
    buildDirectIndex();
  }

  /**
   * Makes room for {@code extra} more groups, so that creating them allocates nothing: the keys'
   * array, and (once the table has slots) slots that stay at most half full. A table still without
   * slots ({@link #ordered()}) gets them when a key breaks the order; if those are refused,
   * {@link #findOrInsert(long[][], int[], int, int[])} throws with the table as before the call.
   * So after this, a lookup of at most {@code extra} keys either succeeds or leaves the table
   * unchanged; a refused allocation here leaves it unchanged too.
   */
  void reserve(int extra) {
    long needed = (long) groups + extra;
    keys.ensureCapacity(needed * keyWidth);
    if (indexed && needed * 2 > mask + 1L) {
      int bits = 64 - shift;
      while ((needed * 2 > (1L << bits))) {
        bits += (1L << bits) >= FAST_GROWTH_SLOTS ? 2 : 1;
      }
      if (bits > MAX_SLOT_BITS) {
        throw new IllegalStateException("group table over 2^" + (MAX_SLOT_BITS - 1) + " groups");
      }
      regrowSlots(bits);
    }
  }

  /** Moves every slot's entry into new slots of {@code bits} bits. */
  private void regrowSlots(int bits) {
    OffHeapBuffer old = slotBuffer;
    MemorySegment oldSlots = slots;
    allocateSlots(bits);
    try (old) {
      long capacity = oldSlots.byteSize() / Long.BYTES;
      for (long i = 0; i < capacity; i++) {
        if ((i & (CHECKPOINT_SLOTS - 1)) == 0) {
          ExecutionControl.checkpoint(); // a large table's growth misses the cache on every slot
        }
        long moved = oldSlots.getAtIndex(SLOT, i);
        if (moved != 0) {
          place(moved);
        }
      }
    }
    buildDirectIndex();
  }

  /**
   * Makes the direct index anew for the keys' range, or drops it, as the class comment says: only
   * in key-in-slot mode (every key non-null, within 32 bits), with at least {@link #DIRECT_MIN_SLOTS}
   * slots, and keys spanning at most as many values as there are slots.
   */
  private void buildDirectIndex() {
    dropDirectIndex();
    if (!keyInSlot || mask + 1 < DIRECT_MIN_SLOTS || groups == 0) {
      return;
    }
    long least = Long.MAX_VALUE;
    long most = Long.MIN_VALUE;
    for (int g = 0; g < groups; g++) {
      long key = keys.get(2L * g);
      least = Math.min(least, key);
      most = Math.max(most, key);
    }
    long span = most - least + 1; // keys within 32 bits: no overflow
    if (span > mask + 1) {
      return;
    }
    try {
      directBuffer = memory.allocate(span * Integer.BYTES);
    } catch (BudgetExceededException refused) {
      return; // the slots answer every lookup without it
    }
    MemorySegment index = directBuffer.segment();
    for (int g = 0; g < groups; g++) {
      if ((g & (CHECKPOINT_SLOTS - 1)) == 0) {
        ExecutionControl.checkpoint(); // a cancelled query leaves the index unused, its buffer to close
      }
      index.setAtIndex(DIRECT_ENTRY, keys.get(2L * g) - least, g + 1);
    }
    direct = index;
    directBase = least;
    directSpan = span;
  }

  /** Enters a new group's key into the direct index, if there is one and the key is in its range. */
  private void indexDirectly(long[] tuple, int group) {
    long at = direct == null ? -1 : directEntryOf(tuple[0], tuple[1]);
    if (at >= 0) {
      direct.setAtIndex(DIRECT_ENTRY, at, group + 1);
    }
  }

  /** The direct index's entry for a key (its value and null mask), or -1 when the index does not cover it. */
  private long directEntryOf(long key, long nullMask) {
    long at = key - directBase; // wraps outside [0, directSpan) for any key outside the range
    return nullMask == 0 && at >= 0 && at < directSpan ? at : -1;
  }

  private void dropDirectIndex() {
    if (directBuffer != null) {
      directBuffer.close();
      directBuffer = null;
      direct = null;
    }
  }

  /** Places every group's entry into the (empty) slots. */
  private void placeAllGroups() {
    long[] tuple = new long[keyWidth]; // not this.tuple: a lookup may be passing that in
    for (int g = 0; g < groups; g++) {
      if ((g & (CHECKPOINT_SLOTS - 1)) == 0) {
        ExecutionControl.checkpoint();
      }
      for (int c = 0; c < keyWidth; c++) {
        tuple[c] = keys.get((long) g * keyWidth + c);
      }
      place(entry(slotTag(tuple, hash(tuple)), g));
    }
  }

  /** What a slot holds above the group: the key itself in key-in-slot mode, else the hash's top half. */
  private int slotTag(long[] tuple, long h) {
    return keyInSlot ? (int) tuple[0] : (int) (h >>> 32);
  }

  /** Leaves key-in-slot mode: the slots are placed again, by their keys' tags. */
  private void leaveKeyInSlot() {
    keyInSlot = false;
    if (indexed) {
      slots.fill((byte) 0);
      placeAllGroups();
    }
  }

  /** Finds or creates the group of {@code tuple}. */
  int findOrInsert(long[] tuple) {
    return findOrInsert(tuple, hash(tuple));
  }

  /** The hash of group {@code group}'s key tuple, as lookups compute it. */
  long hashOf(int group) {
    long h = 0;
    for (int c = 0; c < keyWidth; c++) {
      h = mix(h ^ keys.get((long) group * keyWidth + c));
    }
    return h;
  }

  /** The hash of a key tuple, as {@link #findOrInsert(long[][], int[], int, int[])} computes it per row. */
  private static long hash(long[] tuple) {
    long h = 0;
    for (long component : tuple) {
      h = mix(h ^ component);
    }
    return h;
  }

  private int findOrInsert(long[] tuple, long h) {
    ensureIndexed(1);
    if (keyInSlot && (tuple[1] != 0 || tuple[0] != (int) tuple[0])) {
      leaveKeyInSlot(); // a null or a key wider than a slot's half
    }
    int tag = slotTag(tuple, h);
    long slot = h >>> shift;
    while (true) {
      long entry = slots.getAtIndex(SLOT, slot);
      if (entry == 0) {
        int group = newGroup();
        for (int c = 0; c < keyWidth; c++) {
          keys.set((long) group * keyWidth + c, tuple[c]);
        }
        indexDirectly(tuple, group);
        claim(slot, tag, group);
        return group;
      }
      if ((int) (entry >>> 32) == tag) {
        int group = (int) entry - 1;
        if (keyInSlot) {
          return group; // the slot holds the key itself
        }
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

  /** Slots (or groups) placed between two cancellation checkpoints while the table grows (a power of two). */
  private static final int CHECKPOINT_SLOTS = 1 << 16;

  /** Points {@code slot} at {@code group}, whose key is written, and grows the slots when half full. */
  private void claim(long slot, int tag, int group) {
    slots.setAtIndex(SLOT, slot, entry(tag, group));
    if ((long) groups * 2 > mask + 1L) {
      int bits = 64 - shift;
      int grownBits = bits + (mask + 1L >= FAST_GROWTH_SLOTS ? 2 : 1);
      if (grownBits > MAX_SLOT_BITS) {
        throw new IllegalStateException("group table over 2^" + (MAX_SLOT_BITS - 1) + " groups");
      }
      regrowSlots(grownBits);
    }
  }

  private static long entry(int tag, int group) {
    return ((long) tag << 32) | (group + 1L);
  }

  /**
   * Puts {@code entry} in the first free slot from its home slot on: the top bits of its tag (the
   * hash's top half), or in key-in-slot mode of its key's hash.
   */
  private void place(long entry) {
    long slot = keyInSlot ? hashOfSingleKey((int) (entry >>> 32)) >>> shift : (entry >>> 32) >>> (shift - 32);
    while (slots.getAtIndex(SLOT, slot) != 0) {
      slot = (slot + 1) & mask;
    }
    slots.setAtIndex(SLOT, slot, entry);
  }

  /** New, empty slots of {@code bits} bits; a refused allocation changes nothing. */
  private void allocateSlots(int bits) {
    OffHeapBuffer allocated = memory.allocate(8L << bits, Placement.HUGE_PAGES);
    slotBuffer = allocated;
    slots = allocated.segment();
    mask = (1L << bits) - 1;
    shift = 64 - bits;
  }

  /** {@link #hash} of the tuple of a single non-null key: the key, then its null mask 0. */
  private static long hashOfSingleKey(long key) {
    return mix(mix(key));
  }

  static long mix(long x) {
    x *= 0x9E3779B97F4A7C15L;
    return x ^ (x >>> 29);
  }

  @Override
  public void close() {
    keys.close();
    slotBuffer.close();
    dropDirectIndex();
  }
}
