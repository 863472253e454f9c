package dev.memwall.core.vector;

import java.util.List;

/**
 * Finds the batch of a table's global row id (its position counting through the batches in order),
 * in constant time: a table of the batch holding the first row of every block of 1024 rows, from
 * which at most the batches starting inside that block are stepped over. Joins and gathers, which
 * address rows by global id, locate every output row this way.
 *
 * <p>Thread safety: immutable.
 */
public final class RowLocator {
  private static final int BLOCK_SHIFT = 10;

  private final int[] starts;
  private final int[] batchOfBlock;

  private RowLocator(int[] starts) {
    this.starts = starts;
    int rows = starts[starts.length - 1];
    this.batchOfBlock = new int[(rows >>> BLOCK_SHIFT) + 1];
    int batch = 0;
    for (int block = 0; block < batchOfBlock.length; block++) {
      int first = block << BLOCK_SHIFT;
      while (batch + 1 < starts.length - 1 && starts[batch + 1] <= first) {
        batch++;
      }
      batchOfBlock[block] = batch;
    }
  }

  /**
   * The locator of {@code batches}' rows.
   *
   * @throws IllegalArgumentException if they hold more than {@link Integer#MAX_VALUE} rows
   */
  public static RowLocator of(List<Batch> batches) {
    return ofBatchRows(batches.stream().mapToInt(Batch::rowCount).toArray());
  }

  /**
   * The locator of batches of {@code batchRows[b]} rows.
   *
   * @throws IllegalArgumentException if they hold more than {@link Integer#MAX_VALUE} rows, or a count is negative
   */
  public static RowLocator ofBatchRows(int... batchRows) {
    int[] starts = new int[batchRows.length + 1];
    long rows = 0;
    for (int b = 0; b < batchRows.length; b++) {
      if (batchRows[b] < 0) {
        throw new IllegalArgumentException("batch " + b + " has a negative row count " + batchRows[b]);
      }
      starts[b] = (int) rows;
      rows += batchRows[b];
      if (rows > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("more than " + Integer.MAX_VALUE + " rows cannot be addressed by int row ids");
      }
    }
    starts[batchRows.length] = (int) rows;
    return new RowLocator(starts);
  }

  /** The batch holding global row {@code row} (in {@code [0, rows)}); empty batches are never returned. */
  public int batchOf(int row) {
    int batch = batchOfBlock[row >>> BLOCK_SHIFT];
    while (starts[batch + 1] <= row) {
      batch++;
    }
    return batch;
  }

  /** The global row id of the first row of {@code batch}. */
  public int start(int batch) {
    return starts[batch];
  }

  /** Rows in all batches. */
  public int rows() {
    return starts[starts.length - 1];
  }
}
