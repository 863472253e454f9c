package dev.memwall.index;

/**
 * An {@link OrderedIndex} changed in place, one entry at a time: the pB+-tree and the disk trees.
 *
 * <p>Thread safety: one writer at a time ({@link #insert}, {@link #delete}); whether lookups and
 * scans may run beside it is each implementation's to say. Bad input: a key outside the
 * {@link #keyType()} is refused with {@link IllegalArgumentException} and the index is unchanged;
 * an implementation that runs out of room (a budget, a file) fails before anything changes.
 */
public interface UpdatableIndex extends OrderedIndex {
  /**
   * Adds the entry {@code (key, rowId)}, after every entry with the same key.
   *
   * @throws IllegalArgumentException if {@code key} does not fit the key type
   */
  void insert(long key, long rowId);

  /**
   * Removes one entry {@code (key, rowId)} if there is one; nodes are not merged (an emptied leaf
   * stays in the tree).
   *
   * @return whether an entry was removed
   * @throws IllegalArgumentException if {@code key} does not fit the key type
   */
  boolean delete(long key, long rowId);
}
