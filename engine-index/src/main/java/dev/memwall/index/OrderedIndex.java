package dev.memwall.index;

import java.util.Objects;

/**
 * An index from {@code long} keys to {@code int64} row ids kept in key order, read by point
 * lookups, batched lookups and range scans: what every tree of this module offers, in memory
 * ({@code pbtree.PrefetchingBPlusTree}, {@code csb.CsbPlusTree}) or over a page file
 * ({@code disk.DiskIndex}). A tree that is bulkloaded and then only read (the CSB+-tree) is this
 * and nothing more; the trees that change in place are {@link UpdatableIndex}es. Code that measures
 * one tree (the benchmarks) calls the concrete class, so its loops see one implementation.
 *
 * <p><b>Entries.</b> Keys are of the index's {@link #keyType()}, handed over as {@code long}s;
 * values are row ids. Duplicate keys are allowed: the row ids of one key come back in the order
 * they were added (bulkload order, then insertion order).
 *
 * <p><b>Keys outside the key type</b> are never stored. The in-memory trees refuse a lookup of such
 * a key, or a scan bound outside the type, with {@link IllegalArgumentException}; the disk trees
 * find nothing for the key and clamp scan bounds to the type. A caller that wants one behaviour for
 * both checks {@link KeyType#fits} first.
 *
 * <p><b>Ownership and thread safety.</b> An index owns its memory (and its file) and frees them in
 * {@link #close()}; lookups and scans of a closed index throw {@link IllegalStateException}. Reads
 * change nothing; each implementation states which calls may run concurrently.
 */
public interface OrderedIndex extends AutoCloseable {
  /** The type the keys are stored as. */
  KeyType keyType();

  /** Entries in the index. */
  long size();

  /** Levels of the tree, leaves included (1: the root is a leaf). */
  int height();

  /**
   * Appends the row id of every entry with {@code key} to {@code out}, in the order they were
   * added, and returns how many.
   */
  int search(long key, RowIds out);

  /** The row id of the first entry (in the order added) with {@code key}, or {@code absent}. */
  long searchFirst(long key, long absent);

  /** Whether any entry has {@code key}. */
  boolean contains(long key);

  /**
   * Looks up {@code keys[0 .. count)} and appends every row id of each to {@code out}, which is
   * cleared first; the row ids of key {@code i} are {@code out[offsets[i] .. offsets[i + 1])}, in
   * the order {@link #search} gives them.
   *
   * <p>This default looks the keys up one by one; a tree that can overlap the lookups of a batch
   * (the pB+-tree's group prefetching) overrides it with the same answer.
   *
   * @throws IndexOutOfBoundsException if {@code count} is negative or beyond {@code keys}
   * @throws IllegalArgumentException if {@code offsets} is shorter than {@code count + 1}, or a key
   *     is refused as {@link #search} refuses it ({@code out} and {@code offsets} may then hold
   *     part of the answer)
   */
  default void lookupBatch(long[] keys, int count, int[] offsets, RowIds out) {
    checkBatch(keys, count, offsets);
    out.clear();
    for (int i = 0; i < count; i++) {
      offsets[i] = out.size();
      search(keys[i], out);
    }
    offsets[count] = out.size();
  }

  /** Checks the arrays of a {@link #lookupBatch} call, as documented there. */
  private static void checkBatch(long[] keys, int count, int[] offsets) {
    Objects.checkFromIndexSize(0, count, keys.length);
    if (offsets.length < count + 1) {
      throw new IllegalArgumentException("offsets needs " + (count + 1) + " slots, has " + offsets.length);
    }
  }

  /**
   * A scan of the entries with {@code lo <= key <= hi} in key order (equal keys in the order
   * added); empty if {@code lo > hi}. What a scan sees of changes made while it runs is the
   * implementation's to say.
   */
  IndexScan scan(long lo, long hi);

  /**
   * Walks the whole index and checks its structural invariants (key order within and between
   * nodes, uniform depth, the entry count, and each implementation's own).
   *
   * @throws IllegalStateException describing the first violation
   */
  void checkInvariants();

  /** Frees the index's memory (a durable index commits first); idempotent. */
  @Override
  void close();
}
