package dev.memwall.core.expr;

import dev.memwall.core.vector.Batch;

/**
 * A window of at most {@link #CAPACITY} consecutive rows of one {@link Batch} with a selection
 * vector: the unit every kernel processes at once (vector-at-a-time, as in X100/MonetDB). Scratch
 * vectors of this size stay in the L1 cache, so a pipeline of kernels touches main memory only
 * when it reads columns.
 *
 * <p>Row {@code k} of the chunk is row {@code start + k} of the batch. While {@link #isDense()},
 * every row is selected; after a filter, {@link #selection()} lists the selected {@code k} in
 * increasing order. Kernels compute results only at selected positions; values at other
 * positions are unspecified.
 *
 * <p>Thread safety: none; each worker thread owns its chunks.
 */
public final class Chunk {
  /** Rows per chunk. */
  public static final int CAPACITY = 1024;
  /** See {@link #readsWhole()}. */
  static final int SEQUENTIAL_SHARE = 8;

  private final int[] selection = new int[CAPACITY];
  private Batch batch;
  private int start;
  private int count;
  private int selected;
  private boolean dense;
  private long serial;

  /** Points this chunk at rows {@code [start, start + count)} of {@code batch}, all selected. */
  public void reset(Batch batch, int start, int count) {
    if (count < 0 || count > CAPACITY || start < 0 || start + count > batch.rowCount()) {
      throw new IllegalArgumentException("chunk [" + start + ", " + (start + count) + ") outside batch of "
          + batch.rowCount() + " rows or over " + CAPACITY);
    }
    this.batch = batch;
    this.start = start;
    this.count = count;
    this.selected = count;
    this.dense = true;
    this.serial++;
  }

  public Batch batch() {
    return batch;
  }

  /** First batch row of the chunk. */
  public int start() {
    return start;
  }

  /** Rows in the window, selected or not. */
  public int count() {
    return count;
  }

  /** Selected rows. */
  public int selected() {
    return selected;
  }

  /** Whether all {@link #count()} rows are selected (and {@link #selection()} is not filled). */
  public boolean isDense() {
    return dense;
  }

  /** Selected positions {@code k} (relative to {@link #start()}); valid only when not dense. */
  public int[] selection() {
    return selection;
  }

  /**
   * Identifies the chunk's current contents; changes on every {@link #reset} and
   * {@link #select}. Kernels use it to evaluate a shared subexpression once per chunk.
   */
  public long serial() {
    return serial;
  }

  /**
   * Whether a kernel should compute every row of the window rather than only the selected ones:
   * true when dense or when at least three quarters of the rows are selected, where one
   * sequential pass beats a gather through the selection vector. Values at unselected positions
   * are then computed from real (but filtered-out) rows and must not be relied on.
   */
  public boolean computeAll() {
    return dense || selected * 4 >= count * 3;
  }

  /**
   * Whether a kernel that only reads a column should read the whole window rather than gather the
   * selected rows: true when dense or when at least one row in {@value #SEQUENTIAL_SHARE} is
   * selected. A gather through the selection defeats the hardware prefetcher and costs a dependent
   * load per row, while a bulk copy streams; with 8-byte values, one row in eight selected already
   * touches most cache lines of the window anyway. Values at unselected positions are then real
   * (but filtered-out) rows and must not be relied on.
   */
  public boolean readsWhole() {
    return dense || selected * SEQUENTIAL_SHARE >= count;
  }

  /** The selected position at index {@code i} of the selection. */
  public int position(int i) {
    return dense ? i : selection[i];
  }

  /** Copies the selected positions into {@code into} (materializing a dense selection); returns how many. */
  public int copySelection(int[] into) {
    if (dense) {
      for (int k = 0; k < count; k++) {
        into[k] = k;
      }
    } else {
      System.arraycopy(selection, 0, into, 0, selected);
    }
    return selected;
  }

  /** Replaces the selection by the first {@code n} entries of {@code positions}, in increasing order. */
  public void select(int[] positions, int n) {
    if (positions != selection) {
      System.arraycopy(positions, 0, selection, 0, n);
    }
    selected = n;
    dense = false;
    serial++;
  }
}
