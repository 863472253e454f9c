package dev.memwall.index.disk;

import dev.memwall.index.IndexScan;
import dev.memwall.index.KeyType;

/**
 * What the range scans of the disk trees share: the bounds clamped to the key type, the batch
 * loop with its optimistic retries, and the state a scan resumes from. A batch attempt
 * ({@link #tryNext}) reads without locks and validates what it read before it hands entries out;
 * a failed attempt, or one that throws while what its reader read no longer validates, is retried,
 * and the next attempt descends again by key: from {@link #lo}, or, once entries were handed out,
 * from {@link #lastKey}, skipping the {@link #lastKeyCount} entries of that key already returned.
 *
 * <p>Why: the two trees walk their leaves differently, but their scans hand out batches, retry
 * and resume alike; the per-entry loop stays in each subclass's {@link #tryNext}, called once per
 * batch.
 *
 * <p>Thread safety: one thread per scan; it may run concurrently with the tree's writer. Bad
 * input: {@link #next(long[], long[])} rejects an empty row id array or a shorter key array with
 * {@link IllegalArgumentException}, and a closed tree with {@link IllegalStateException}.
 */
public abstract class AbstractRangeScan implements IndexScan {
  /** What {@link #tryNext} returns when the batch must be retried. */
  protected static final int RETRY = OptimisticReader.RETRY;

  private final AbstractDiskTree tree;
  private final OptimisticReader reader;
  /** The lower bound, clamped to the key type. */
  protected final long lo;
  /** The upper bound, clamped to the key type. */
  protected final long hi;
  /** Whether the scan is over. */
  protected boolean done;
  /** Whether the next batch continues from the position the last one ended at; else it descends by key. */
  protected boolean positioned;
  /** Whether entries were handed out: then the scan resumes by key from {@link #lastKey}. */
  protected boolean emitted;
  /** The key of the last entry handed out. */
  protected long lastKey;
  /** How many entries with {@link #lastKey} were handed out. */
  protected long lastKeyCount;
  /** The page of the end key's leaf, which prefetching does not pass; -1 while unknown. */
  protected int endPage = -1;

  /**
   * A scan of {@code tree}'s entries with {@code lo <= key <= hi} (empty if lo > hi), reading with
   * {@code reader}, which the subclass uses for its batches.
   */
  protected AbstractRangeScan(AbstractDiskTree tree, OptimisticReader reader, long lo, long hi) {
    KeyType keyType = tree.keyType;
    this.tree = tree;
    this.reader = reader;
    this.lo = Math.max(lo, keyType.min());
    this.hi = Math.min(hi, keyType.max());
    this.done = this.lo > this.hi;
  }

  @Override
  public final int next(long[] rowIds) {
    return next(null, rowIds);
  }

  @Override
  public final int next(long[] keys, long[] rowIds) {
    tree.checkOpen();
    AbstractDiskTree.checkBatchArrays(keys, rowIds);
    while (!done) {
      int got;
      try {
        got = tryNext(keys, rowIds);
      } catch (RuntimeException e) {
        if (reader.readValid()) {
          throw e; // what was read was current: a real error, not a torn read
        }
        got = RETRY;
      }
      if (got >= 0) {
        if (got > 0 || done) {
          return got;
        }
        continue;
      }
      positioned = false; // resume by key
      tree.retries.increment();
      Thread.onSpinWait();
    }
    return 0;
  }

  /**
   * Records where a validated batch leaves the run of equal keys: whether any entry was handed out
   * so far ({@code any}), the last key handed out and how many entries with it were.
   */
  protected final void recordRun(boolean any, long key, long count) {
    emitted = any;
    lastKey = key;
    lastKeyCount = count;
  }

  /**
   * One batch attempt: reads up to {@code rowIds.length} entries (and their keys into {@code keys}
   * unless null) from where the scan stands, validates what it read, and only then records where
   * the next batch starts ({@link #positioned} and the subclass's position, {@link #emitted},
   * {@link #lastKey}, {@link #lastKeyCount}, {@link #done}).
   *
   * @return how many entries it handed out (0 with {@link #done} unset: try again from the new
   *     position), or {@link #RETRY}
   */
  protected abstract int tryNext(long[] keys, long[] rowIds);
}
