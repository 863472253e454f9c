package dev.memwall.join.algorithm;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.join.keys.KeyColumns;
import dev.memwall.join.keys.KeyShape;

/**
 * The build side of a join on one integral key whose values are unique and dense in their range
 * {@code [min, max]} (a primary key: TPC-H's part, supplier, customer and order keys): an array
 * indexed by {@code key - min} that holds the key's row + 1, or 0 where no row has that key. A lookup
 * is one subtraction, one range test and one load, with no hash to compute and no slot to compare;
 * the array takes 4 bytes per value of the range, against the 64 bytes per row of an {@link
 * OpenAddressingTable}'s slots, so a build side of a few hundred thousand keys stays in a core's
 * cache where the hash table would not. This is the "perfect hash" join of DuckDB and of
 * Umbra-style engines, which take it for the same keys.
 *
 * <p>{@link #build} takes it only where its array is no larger than the open-addressing table it
 * replaces and within a share of the heap: one pass reads the keys' range (and gives up at a key equal to the one before
 * it, which catches the duplicates of clustered input at once), the second fills the array and gives
 * up at the first key already there. The caller then builds the hash table instead; the failed
 * attempt costs those passes and nothing stays allocated.
 *
 * <p>The array is on the heap rather than off-heap: every probe row loads one element at a place its
 * key decides, and an array element is cheaper to load than a memory segment's checked access.
 * Ownership: the array is charged to the {@link EngineMemory} it was built with as heap ({@link
 * EngineMemory#reserveHeap}); {@link #close} returns the charge. Thread safety: built by one thread;
 * afterwards any number of threads may look up concurrently.
 */
public final class DenseKeyTable implements BuildTable {
  /** Keys read at a time from the build side's columns. */
  private static final int BLOCK = 4096;
  /** The most elements a Java array holds (the JDK's arrays stop a little below {@code Integer.MAX_VALUE}). */
  private static final long MAX_LENGTH = Integer.MAX_VALUE - 8;

  private final EngineMemory memory;
  /** Row + 1 of key {@code min + i} at {@code i}; 0 for none. */
  private final int[] rows;
  private final long min;
  /** {@code max - min}: the largest offset in the range. */
  private final long lastOffset;
  private boolean closed;

  private DenseKeyTable(EngineMemory memory, int[] rows, long min) {
    this.memory = memory;
    this.rows = rows;
    this.min = min;
    this.lastOffset = rows.length - 1L;
  }

  /**
   * The table of {@code keys}, or null when it does not apply: a key that is not one integral
   * column, no keyed row, two rows with one key, a range whose array would take more than the
   * {@link OpenAddressingTable} of the same keys ({@link OpenAddressingTable#bytesFor}) or more than a
   * sixteenth of the JVM's heap limit, or a budget that refuses the array (a hash table the caller
   * builds instead, no smaller, then fails with its own error). Checks for cancellation between
   * blocks of keys.
   */
  public static DenseKeyTable build(KeyColumns keys, EngineMemory memory) {
    return build(keys, memory, OpenAddressingTable.bytesFor(keys.rowCount()));
  }

  /** {@link #build(KeyColumns, EngineMemory)} with the array's limit {@code limitBytes} instead (for tests). */
  static DenseKeyTable build(KeyColumns keys, EngineMemory memory, long limitBytes) {
    Range range = range(keys, limitBytes);
    if (range == null) {
      return null;
    }
    long lastOffset = range.lastOffset();
    long bytes = (lastOffset + 1) * Integer.BYTES;
    try {
      memory.reserveHeap(bytes);
    } catch (BudgetExceededException e) {
      return null;
    }
    DenseKeyTable table;
    try {
      table = new DenseKeyTable(memory, new int[(int) (lastOffset + 1)], range.min());
    } catch (OutOfMemoryError e) {
      memory.releaseHeap(bytes);
      throw e;
    }
    try {
      if (table.fill(keys)) {
        return table;
      }
      table.close();
      return null;
    } catch (RuntimeException | Error e) {
      table.close();
      throw e;
    }
  }

  /**
   * Whether {@link #build} may take {@code keys}: the first of its two passes, which reads the keys'
   * range and finds the repeats of clustered input and of a range with fewer values than rows, but
   * not every repeat (the second pass finds the rest). For a planner that wants to know before
   * building it.
   */
  public static boolean mayHold(KeyColumns keys) {
    return range(keys, OpenAddressingTable.bytesFor(keys.rowCount())) != null;
  }

  /** The least key and the range's largest offset, as the first pass finds them. */
  private record Range(long min, long lastOffset) {}

  /**
   * The first pass: the keys' range, or null when no table can hold them (see {@link #build}).
   * Checks for cancellation between blocks of keys.
   */
  private static Range range(KeyColumns keys, long limitBytes) {
    if (keys.shape() != KeyShape.INT32 && keys.shape() != KeyShape.INT64) {
      return null;
    }
    long[] values = new long[BLOCK];
    int[] ids = new int[BLOCK];
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long keyed = 0;
    long previous = 0;
    for (int batch = 0; batch < keys.batches(); batch++) {
      for (int from = 0, rows = keys.batchRows(batch); from < rows; from += BLOCK) {
        ExecutionControl.checkpoint();
        int n = keys.readKeys(batch, from, Math.min(rows, from + BLOCK), values, ids);
        boolean repeated = false;
        for (int i = 0; i < n; i++) {
          long key = values[i];
          min = Math.min(min, key);
          max = Math.max(max, key);
          repeated |= key == previous && keyed + i > 0;
          previous = key;
        }
        if (repeated) {
          return null;
        }
        keyed += n;
      }
    }
    long lastOffset = max - min;
    long limit = Math.min(limitBytes, Runtime.getRuntime().maxMemory() / 16);
    // lastOffset below 0: the range overflows a long; more keyed rows than values: a key repeats
    if (keyed == 0 || lastOffset < 0 || lastOffset >= MAX_LENGTH || (lastOffset + 1) * Integer.BYTES > limit
        || keyed > lastOffset + 1) {
      return null;
    }
    return new Range(min, lastOffset);
  }

  /** Enters every keyed row; false at the first key already entered. */
  private boolean fill(KeyColumns keys) {
    long[] values = new long[BLOCK];
    int[] ids = new int[BLOCK];
    int[] at = rows;
    for (int batch = 0; batch < keys.batches(); batch++) {
      for (int from = 0, count = keys.batchRows(batch); from < count; from += BLOCK) {
        ExecutionControl.checkpoint();
        int n = keys.readKeys(batch, from, Math.min(count, from + BLOCK), values, ids);
        int taken = 0;
        for (int i = 0; i < n; i++) {
          int offset = (int) (values[i] - min);
          taken |= at[offset];
          at[offset] = ids[i] + 1;
        }
        if (taken != 0) { // a unique key finds its place empty
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Looks up the keys {@code keys[positions[i]]}, {@code i < n}: {@code entries[i]} receives the
   * entry of the key (its row + 1), or 0 when no row has it.
   */
  public void entriesOf(long[] keys, int[] positions, int n, long[] entries) {
    for (int i = 0; i < n; i++) {
      entries[i] = entryOf(keys[positions[i]]);
    }
  }

  /** The entry of {@code key} (its row + 1), or 0 when no row has it. */
  public long entryOf(long key) {
    long offset = key - min;
    return Long.compareUnsigned(offset, lastOffset) <= 0 ? rows[(int) offset] : 0;
  }

  @Override
  public boolean oneRowPerEntry() {
    return true;
  }

  /** -1: every key has one row, so no chain goes on. */
  @Override
  public int nextRow(int row) {
    return -1;
  }

  @Override
  public long bytes() {
    return (long) rows.length * Integer.BYTES;
  }

  @Override
  public String describe() {
    return "dense key table of " + bytes() + " bytes (keys " + min + " to " + (min + lastOffset) + ")";
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      memory.releaseHeap(bytes());
    }
  }
}
