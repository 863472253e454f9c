package dev.memwall.core.operator;

import dev.memwall.core.Closing;
import dev.memwall.core.vector.Batch;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A k-way merge of {@link SortedRun}s: a binary heap of one reader per run, ordered by the sort keys
 * and, for equal keys, by the run's position in the list, so that ties come out in run order (a
 * stable merge). Each reader holds one batch of its run in memory.
 *
 * <p>Ownership: closing frees the readers (not the runs). Thread safety: one thread.
 */
final class RunMerge implements AutoCloseable {
  private final List<SortedRun.Reader> readers = new ArrayList<>();
  private final int[] keyColumns;
  private final boolean[] descending;
  private final boolean[] nullsFirst;
  private final int[] heap;
  private int size;
  /** The reader whose row {@link #next} returned, advanced on the next call; -1 before. */
  private int current = -1;
  private Schema schema;

  RunMerge(List<SortedRun> runs, List<SortKey> keys, BufferAllocator allocator) {
    try {
      for (SortedRun run : runs) {
        readers.add(run.open(allocator));
      }
      heap = new int[readers.size()];
      int[] columns = null;
      for (int r = 0; r < readers.size(); r++) {
        SortedRun.Reader reader = readers.get(r);
        if (reader.advance()) {
          if (schema == null) {
            schema = reader.batch().schema();
          }
          heap[size++] = r;
        }
      }
      keyColumns = new int[keys.size()];
      descending = new boolean[keys.size()];
      nullsFirst = new boolean[keys.size()];
      for (int i = 0; i < keys.size(); i++) {
        descending[i] = keys.get(i).descending();
        nullsFirst[i] = keys.get(i).nullsFirst();
        keyColumns[i] = schema == null ? 0 : columnIndex(schema, keys.get(i).column());
      }
      for (int i = size / 2 - 1; i >= 0; i--) {
        siftDown(i);
      }
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  private static int columnIndex(Schema schema, String name) {
    for (int c = 0; c < schema.getFields().size(); c++) {
      if (schema.getFields().get(c).getName().equals(name)) {
        return c;
      }
    }
    throw new IllegalArgumentException("no sort key column '" + name + "' in the runs' schema " + schema);
  }

  /** The runs' schema (null when every run is empty). */
  Schema schema() {
    return schema;
  }

  /** Moves to the next row in order; false when every run is done. */
  boolean next() {
    if (current >= 0) {
      if (readers.get(current).advance()) {
        siftDown(0);
      } else {
        heap[0] = heap[--size];
        if (size > 0) {
          siftDown(0);
        }
      }
    }
    if (size == 0) {
      current = -1;
      return false;
    }
    current = heap[0];
    return true;
  }

  /** The batch of the current row. */
  Batch batch() {
    return readers.get(current).batch();
  }

  /** The current row in {@link #batch()}. */
  int row() {
    return readers.get(current).row();
  }

  /** Whether reader {@code a}'s row comes before reader {@code b}'s. */
  private boolean before(int a, int b) {
    SortedRun.Reader left = readers.get(a);
    SortedRun.Reader right = readers.get(b);
    for (int i = 0; i < keyColumns.length; i++) {
      int cmp = Sorter.compare(left.batch().column(keyColumns[i]), left.row(), right.batch().column(keyColumns[i]),
          right.row(), descending[i], nullsFirst[i], null);
      if (cmp != 0) {
        return cmp < 0;
      }
    }
    return a < b;
  }

  private void siftDown(int at) {
    while (true) {
      int least = at;
      int left = 2 * at + 1;
      int right = left + 1;
      if (left < size && before(heap[left], heap[least])) {
        least = left;
      }
      if (right < size && before(heap[right], heap[least])) {
        least = right;
      }
      if (least == at) {
        return;
      }
      int swap = heap[at];
      heap[at] = heap[least];
      heap[least] = swap;
      at = least;
    }
  }

  @Override
  public void close() {
    Closing.closeAll(readers);
  }
}
