package dev.memwall.index.disk;

import dev.memwall.index.RowIds;
import java.util.concurrent.atomic.LongAdder;

/**
 * A reader of a disk tree that reads without locks, and the retry discipline of its point
 * lookups: an attempt reads pages and validates what it read; an attempt that fails validation,
 * or throws while what it read no longer validates (a torn read, not a real error), is retried
 * from the start with its partial output dropped. An exception thrown while what was read still
 * validates is a real error and propagates.
 *
 * <p>Why: the disk trees read differently ({@link DiskBPlusTree} along a validated path of pages,
 * the cache-first tree through validated positions on logical pages) but retry alike; this class
 * holds the retry once, and {@link AbstractDiskTree} the lookups built on it. The subclasses are
 * final classes, so the JIT can inline the attempt into the retry loop.
 *
 * <p>Thread safety: a reader is used by one thread at a time (a tree keeps one per reader thread,
 * a scan its own). Bad input: none is checked here; the tree checks the key first.
 */
public abstract class OptimisticReader {
  /** What an attempt returns when it must be retried. */
  protected static final int RETRY = -1;

  /** The one-entry output of {@link DiskIndex#searchFirst} and {@link DiskIndex#contains}, reused. */
  final RowIds one = new RowIds(1);

  protected OptimisticReader() {}

  /**
   * One attempt at appending the row ids of up to {@code limit} entries with {@code key}, in
   * insertion order, to {@code out}, validating everything it read.
   *
   * @return how many it appended, or {@link #RETRY} (then {@code out} may hold a partial answer,
   *     which the caller drops)
   */
  protected abstract int tryLookup(long key, RowIds out, int limit);

  /**
   * Whether what this reader read in its last attempt is still current, so that an exception the
   * attempt threw is a real error, not the effect of a torn read.
   */
  protected abstract boolean readValid();

  /**
   * Appends the row ids of up to {@code limit} entries with {@code key} to {@code out}, retrying
   * until an attempt validates; each retry counts in {@code retries}.
   *
   * @return how many were appended
   */
  final int lookup(long key, RowIds out, int limit, LongAdder retries) {
    int mark = out.size();
    for (;;) {
      int got;
      try {
        got = tryLookup(key, out, limit);
      } catch (RuntimeException e) {
        if (readValid()) {
          throw e; // what was read was current: a real error, not a torn read
        }
        got = RETRY;
      }
      if (got >= 0) {
        return got;
      }
      out.truncate(mark);
      retries.increment();
      Thread.onSpinWait();
    }
  }
}
