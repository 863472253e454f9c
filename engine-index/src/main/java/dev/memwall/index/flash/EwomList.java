package dev.memwall.index.flash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Objects;

/**
 * The linked list of Ross's EWOM paper (DaMoN 2008, section 3) in a region of flash-like memory:
 * the all-ones pattern is the null pointer, so an append writes its node into erased space and
 * points the last node's null pointer at it, and a delete clears the node's live flag; both only
 * clear bits. A {@link #rewrite} (the paper's background clean-up, and what {@link #append} does
 * when the erased space is used up) drops the deleted nodes, writes the rest in order and stores a
 * shortcut to the tail, so that later appends need not walk from the head.
 *
 * <pre>
 * region: [0,4) head node (-1: none) [4,8) tail at the last rewrite (-1: none)
 *         node i at 8 + 16 i: [0,4) next node (-1: none) [4,8) flags [8,16) value
 *         flags: bit 0 clear = node in use, bit 1 set = live (cleared by a delete)
 * </pre>
 *
 * <p>Nodes are used in order, so the node after the list's last one is the first erased one. Values
 * are any {@code long}, the all-ones value included (the in-use flag tells a node from erased space).
 *
 * <p><b>Ownership and thread safety.</b> A view of a segment the caller owns; holds no memory. One
 * thread at a time.
 *
 * <p><b>Bad input.</b> A region too small for one node: {@link IllegalArgumentException}. A region
 * whose pointers leave the nodes or loop (not a list written by this class):
 * {@link IllegalStateException} naming the node, before anything is changed.
 */
public final class EwomList {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final long HEAD = 0;
  private static final long TAIL = 4;
  private static final long NODES = 8;
  private static final int NODE = 16;
  private static final int NULL = -1;
  private static final int IN_USE = 1;
  private static final int LIVE = 2;

  private final MemorySegment region;
  private final int capacity;

  /** A view of {@code region}; call {@link #clear} before the first use of a fresh region. */
  public EwomList(MemorySegment region) {
    this.region = Objects.requireNonNull(region, "region");
    long nodes = (region.byteSize() - NODES) / NODE;
    if (nodes < 1) {
      throw new IllegalArgumentException("a list needs at least " + (NODES + NODE) + " bytes, the region has "
          + region.byteSize());
    }
    this.capacity = (int) Math.min(nodes, Integer.MAX_VALUE);
  }

  /** Nodes the region holds, live or deleted. */
  public int capacity() {
    return capacity;
  }

  private long node(int i) {
    return NODES + (long) NODE * i;
  }

  private int next(int i) {
    int next = region.get(INT, node(i));
    if (next != NULL && (next <= i || next >= capacity)) {
      throw new IllegalStateException("list node " + i + " points to " + next + ", not a later node of "
          + capacity);
    }
    return next;
  }

  private boolean live(int i) {
    return (region.get(INT, node(i) + 4) & LIVE) != 0;
  }

  /** The last node, walking from the tail shortcut (or the head); -1 for an empty region. */
  private int last() {
    int head = region.get(INT, HEAD);
    if (head == NULL) {
      return NULL;
    }
    int tail = region.get(INT, TAIL);
    int at = tail != NULL ? tail : head;
    if (at < 0 || at >= capacity) {
      throw new IllegalStateException("list head or tail names node " + at + " of " + capacity);
    }
    for (int n; (n = next(at)) != NULL; ) { // next() only moves forward, so this ends
      at = n;
    }
    return at;
  }

  /** Erases the region: an empty list (a page-write step on flash). */
  public void clear() {
    region.fill((byte) 0xFF);
  }

  /**
   * Appends {@code value}; true if the erased space was used up and the list was rewritten first (a
   * 0-to-1 change: a page-write step under the EWOM model), false if the append only cleared bits.
   *
   * @throws IllegalStateException if the list is full of live nodes (nothing to drop), or corrupt
   */
  public boolean append(long value) {
    int last = last();
    int free = last + 1;
    boolean rewrote = false;
    if (free >= capacity) {
      long[] values = values();
      if (values.length >= capacity) {
        throw new IllegalStateException("list of " + capacity + " nodes is full of live values");
      }
      write(values);
      last = values.length - 1;
      free = values.length;
      rewrote = true;
    }
    long at = node(free);
    region.set(LONG, at + 8, value);
    region.set(INT, at + 4, ~IN_USE); // in use and live: only bit 0 cleared
    if (last == NULL) {
      region.set(INT, HEAD, free);
    } else {
      region.set(INT, node(last), free);
    }
    return rewrote;
  }

  /** Deletes the first live node holding {@code value} by clearing its live flag; false if none. */
  public boolean delete(long value) {
    int head = region.get(INT, HEAD);
    if (head != NULL && (head < 0 || head >= capacity)) {
      throw new IllegalStateException("list head names node " + head + " of " + capacity);
    }
    for (int i = head; i != NULL; i = next(i)) {
      if (live(i) && region.get(LONG, node(i) + 8) == value) {
        long flags = node(i) + 4;
        region.set(INT, flags, region.get(INT, flags) & ~LIVE);
        return true;
      }
    }
    return false;
  }

  /** The live values, in append order. */
  public long[] values() {
    int head = region.get(INT, HEAD);
    if (head != NULL && (head < 0 || head >= capacity)) {
      throw new IllegalStateException("list head names node " + head + " of " + capacity);
    }
    long[] out = new long[16];
    int n = 0;
    for (int i = head; i != NULL; i = next(i)) {
      if (live(i)) {
        if (n == out.length) {
          out = Arrays.copyOf(out, 2 * n);
        }
        out[n++] = region.get(LONG, node(i) + 8);
      }
    }
    return Arrays.copyOf(out, n);
  }

  /** Drops the deleted nodes and stores the tail shortcut: the paper's clean-up, one page-write step. */
  public void rewrite() {
    write(values());
  }

  private void write(long[] values) {
    clear();
    for (int i = 0; i < values.length; i++) {
      region.set(LONG, node(i) + 8, values[i]);
      region.set(INT, node(i) + 4, ~IN_USE);
      if (i + 1 < values.length) {
        region.set(INT, node(i), i + 1);
      }
    }
    if (values.length > 0) {
      region.set(INT, HEAD, 0);
      region.set(INT, TAIL, values.length - 1);
    }
  }
}
