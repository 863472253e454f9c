package dev.memwall.index;

/**
 * An open range scan of an {@link OrderedIndex}, handing out its entries in batches, in key order.
 *
 * <p>Thread safety: one thread per scan. Bad input: a {@code keys} array shorter than
 * {@code rowIds} is refused with {@link IllegalArgumentException}; a scan of a closed index throws
 * {@link IllegalStateException}. An empty {@code rowIds} array gets 0 from the in-memory trees and
 * {@link IllegalArgumentException} from the disk trees, so callers pass a non-empty one.
 */
public interface IndexScan {
  /** The next row ids into {@code rowIds}, up to its length; returns how many (0: the scan is over). */
  int next(long[] rowIds);

  /**
   * The next entries: row ids into {@code rowIds} and, when {@code keys} is not null, their keys
   * into {@code keys}, up to the length of {@code rowIds}; returns how many (0: the scan is over,
   * and stays over).
   */
  int next(long[] keys, long[] rowIds);
}
