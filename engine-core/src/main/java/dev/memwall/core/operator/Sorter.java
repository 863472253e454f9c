package dev.memwall.core.operator;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.core.vector.VarCharColumn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ObjIntConsumer;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * ORDER BY and top-N over a table: sorts row references stably (as packed primitive keys where the
 * keys' domains are small, {@link PackedSortKeys}, else with a merge sort), or for a small limit keeps
 * the best {@code limit} in a bounded heap, and gathers them into a new table. Strings compare by
 * unsigned UTF-8 bytes (code point order), doubles as SQL orders them ({@code -0.0} ties with
 * {@code 0.0}, NaN last); a dictionary-encoded key whose dictionary is small against the rows compares
 * by the rank of each entry, computed once. A dictionary-encoded column stays encoded in the result
 * when its dictionary is small against the rows returned ({@link TableBuilder#keepsEncoded}).
 *
 * <p>Meant for the small tables at the top of a plan (aggregation results, top-N) and for the runs
 * of an {@link ExternalSort}: the row references are a Java {@code long[]} of one entry per row.
 *
 * <p>Memory: the heap arrays that grow with the data are charged to the budget of the memory the
 * sort runs under ({@link EngineMemory#reserveHeap}) before they are made, and released when the
 * sort returns or fails (cancellation included): for a full sort {@value #REFERENCE_BYTES} bytes a
 * row (its reference and the merge's scratch slot); for a top-N 8 bytes a row (the references) and
 * 12 a row kept (the bounded heap's slot and the result's reference); for a plain limit 8 bytes a
 * row returned; for a ranked dictionary 20 bytes an entry while it is ranked and 4 (the rank) for the
 * rest of the sort. These arrays scale with the input, and under skew (one huge run, every row in
 * one sort) would otherwise outgrow the heap unseen by the budget: charged, the budget bounds the
 * sort's whole footprint, and a budget too small for them fails with a
 * {@link dev.memwall.core.memory.BudgetExceededException} before the heap's {@link OutOfMemoryError}.
 *
 * <p>Thread safety: stateless.
 */
public final class Sorter {
  private Sorter() {}

  /**
   * The rows of {@code input} ordered by {@code keys}, at most {@code limit} of them, as a new table
   * allocated from {@code memory}. {@code input} is left unchanged.
   */
  public static Table sort(Table input, List<SortKey> keys, long limit, EngineMemory memory) {
    return sort(List.of(input), keys, limit, memory);
  }

  /**
   * The rows of all {@code inputs} (same column names and types; taken in list order, so ties keep
   * it) ordered by {@code keys}, at most {@code limit} of them, as a new table allocated from
   * {@code memory}. The inputs are left unchanged. String columns stay encoded where a single input
   * is encoded with a dictionary small against the rows returned.
   */
  public static Table sort(List<Table> inputs, List<SortKey> keys, long limit, EngineMemory memory) {
    return sort(inputs, keys, limit, memory, memory);
  }

  /**
   * {@link #sort(List, List, long, EngineMemory)} with the result allocated from {@code output} and
   * the sort's heap arrays charged to {@code working}.
   */
  static Table sort(List<Table> inputs, List<SortKey> keys, long limit, EngineMemory output, EngineMemory working) {
    Table input = inputs.getFirst();
    List<Batch> batches = new ArrayList<>();
    long total = 0;
    for (Table table : inputs) {
      batches.addAll(table.batches());
      total += table.rowCount();
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("cannot sort " + total + " rows in memory");
    }
    int take = (int) Math.min(limit, total);
    try (HeapCharge heap = new HeapCharge(working)) {
      long[] refs;
      if (keys.isEmpty()) { // a plain limit: the first rows
        heap.reserve(8L * take);
        refs = rowReferences(batches, take);
      } else {
        heap.reserve(8L * total);
        refs = rowReferences(batches, (int) total);
        Order order = Order.of(batches, input, keys, heap);
        if ((long) take * TOP_N_SHARE < refs.length) {
          heap.reserve((long) TOP_N_BYTES * take);
          refs = smallest(refs, take, order.comparator(batches));
        } else {
          heap.reserve(8L * refs.length);
          order.sort(refs, batches);
        }
      }
      return gathered(inputs, batches, refs, take, output);
    }
  }

  /** The rows of references {@code [0, take)} as a new table of the inputs' columns, allocated from {@code memory}. */
  private static Table gathered(List<Table> inputs, List<Batch> batches, long[] refs, int take, EngineMemory memory) {
    Table input = inputs.getFirst();
    List<String> names = new ArrayList<>();
    List<ColumnType> types = new ArrayList<>();
    List<Field> fields = input.schema().getFields();
    boolean[] encoded = new boolean[fields.size()];
    for (int c = 0; c < fields.size(); c++) {
      Field field = fields.get(c);
      names.add(field.getName());
      types.add(ColumnType.of(field));
      Dictionary dictionary = field.getDictionary() == null ? null : input.dictionaries().get(field.getDictionary().getId());
      encoded[c] = inputs.size() == 1 && dictionary != null
          && TableBuilder.keepsEncoded(dictionary.getVector().getValueCount(), take);
    }
    try (TableBuilder builder = new TableBuilder(names, types, encoded, memory.arrow())) {
      if (take < SMALL_RESULT_ROWS) {
        builder.batchRows(Math.max(64, Integer.highestOneBit(Math.max(1, take - 1)) << 1)); // a top-N's few rows
      }
      gather(batches, refs, 0, take, builder);
      return builder.build();
    }
  }

  /**
   * Calls {@code action} with every row of {@code input} (its batch and row), ordered (stably) by
   * {@code keys}; the references are charged to {@code working}'s budget until it returns.
   */
  static void forEachSorted(Table input, List<SortKey> keys, EngineMemory working, ObjIntConsumer<Batch> action) {
    List<Batch> batches = input.batches();
    if (input.rowCount() > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("cannot sort " + input.rowCount() + " rows in memory");
    }
    try (HeapCharge heap = new HeapCharge(working)) {
      heap.reserve((long) REFERENCE_BYTES * input.rowCount());
      long[] refs = rowReferences(batches, (int) input.rowCount());
      if (!keys.isEmpty()) {
        Order.of(batches, input, keys, heap).sort(refs, batches);
      }
      for (long ref : refs) {
        action.accept(batches.get((int) (ref >>> 32)), (int) ref);
      }
    }
  }

  /**
   * Sort keys resolved against a table: their columns, directions, null placements, and the ranks of
   * string columns' dictionary entries ({@link #ranksOf}, null where a column has none).
   */
  private record Order(int[] columns, boolean[] descending, boolean[] nullsFirst, int[][] ranks) {
    /** {@code keys} of {@code input}, whose rows are {@code batches}; ranks charged to {@code heap}. */
    static Order of(List<Batch> batches, Table input, List<SortKey> keys, HeapCharge heap) {
      int[] columns = keys.stream().mapToInt(k -> input.columnIndex(k.column())).toArray();
      boolean[] descending = new boolean[keys.size()];
      boolean[] nullsFirst = new boolean[keys.size()];
      int[][] ranks = new int[keys.size()][];
      for (int i = 0; i < keys.size(); i++) {
        descending[i] = keys.get(i).descending();
        nullsFirst[i] = keys.get(i).nullsFirst();
        ranks[i] = ranksOf(batches, columns[i], heap);
      }
      return new Order(columns, descending, nullsFirst, ranks);
    }

    /** Sorts {@code refs} (every row of {@code batches}, in order) stably: keys packed where they fit, else merged. */
    void sort(long[] refs, List<Batch> batches) {
      if (!PackedSortKeys.sort(refs, batches, columns, descending, nullsFirst, ranks)) {
        mergeSort(refs, new long[refs.length], 0, refs.length, comparator(batches));
      }
    }

    /** Compares references into {@code batches} by these keys. */
    RowComparator comparator(List<Batch> batches) {
      return (a, b) -> {
        for (int i = 0; i < columns.length; i++) {
          Column left = batches.get((int) (a >>> 32)).column(columns[i]);
          Column right = batches.get((int) (b >>> 32)).column(columns[i]);
          int cmp = compare(left, (int) a, right, (int) b, descending[i], nullsFirst[i], ranks[i]);
          if (cmp != 0) {
            return cmp;
          }
        }
        return 0;
      };
    }
  }

  // The loops over rows are methods of their own, not part of sort: sort runs once per query and
  // stays interpreted or C1-compiled, while a loop inside it would have C2 compile it on stack with
  // everything it calls, again for each query that brings other types.

  /**
   * One reference per row of the first {@code count} rows of {@code batches}: the batch index in the
   * high 32 bits, the row in the low.
   */
  private static long[] rowReferences(List<Batch> batches, int count) {
    long[] refs = new long[count];
    int n = 0;
    for (int b = 0; b < batches.size() && n < count; b++) {
      for (int row = 0; row < batches.get(b).rowCount() && n < count; row++) {
        refs[n++] = ((long) b << 32) | row;
      }
    }
    return refs;
  }

  /** Appends the rows of references {@code [from, to)}, in order, to {@code builder}. */
  static void gather(List<Batch> batches, long[] refs, int from, int to, TableBuilder builder) {
    for (int i = from; i < to; i++) {
      if ((i & (CHECKPOINT_ROWS - 1)) == 0) {
        ExecutionControl.checkpoint();
      }
      Batch batch = batches.get((int) (refs[i] >>> 32));
      int row = (int) refs[i];
      for (Column column : batch.columns()) {
        builder.appendFrom(column, row);
      }
      builder.endRow();
    }
  }

  /** Rows between two cancellation checkpoints of a long loop (a power of two). */
  private static final int CHECKPOINT_ROWS = 1 << 16;

  /** Results below this many rows are built in one batch of just their size. */
  private static final int SMALL_RESULT_ROWS = 1 << 12;

  /** A limit below 1/this of the rows is served by a bounded heap instead of a full sort. */
  private static final int TOP_N_SHARE = 4;

  /** Heap bytes a full sort holds per row: the row's reference and the merge's scratch slot for it. */
  public static final int REFERENCE_BYTES = 16;

  /** Heap bytes a top-N holds per row kept, beside the references: its heap slot and its result reference. */
  private static final int TOP_N_BYTES = 12;

  /** Heap bytes per dictionary entry while the entries are ranked: its index, the merge's scratch slot, its rank. */
  private static final int RANKING_BYTES = 20;

  /**
   * Heap charged to a memory's budget ({@link EngineMemory#reserveHeap}) for one sort, released on
   * {@link #close}. One thread.
   */
  private static final class HeapCharge implements AutoCloseable {
    private final EngineMemory memory;
    private long bytes;

    HeapCharge(EngineMemory memory) {
      this.memory = memory;
    }

    /** Charges {@code more} bytes; nothing when the budget refuses them. */
    void reserve(long more) {
      memory.reserveHeap(more);
      bytes += more;
    }

    /** Returns {@code less} of the bytes charged, whose arrays were dropped. */
    void release(long less) {
      memory.releaseHeap(less);
      bytes -= less;
    }

    @Override
    public void close() {
      long held = bytes;
      bytes = 0;
      memory.releaseHeap(held);
    }
  }

  /**
   * The {@code k} smallest refs in stable order: a max-heap of the best {@code k} seen so far
   * (O(n log k)), ties broken by input position so the result equals a stable sort's prefix.
   */
  private static long[] smallest(long[] refs, int k, RowComparator comparator) {
    if (k == 0) {
      return new long[0];
    }
    // Heap entries are indexes into refs; compare rows, then positions (later = larger).
    int[] heap = new int[k];
    java.util.function.IntBinaryOperator order = (a, b) -> {
      int cmp = comparator.compare(refs[a], refs[b]);
      return cmp != 0 ? cmp : Integer.compare(a, b);
    };
    int size = 0;
    for (int i = 0; i < refs.length; i++) {
      if (size < k) {
        heap[size] = i;
        siftUp(heap, size++, order);
      } else if (order.applyAsInt(i, heap[0]) < 0) {
        heap[0] = i;
        siftDown(heap, size, order);
      }
    }
    // heap sort in place: the largest left goes last each time (the order is total: no ties)
    for (int end = size - 1; end > 0; end--) {
      int swap = heap[0];
      heap[0] = heap[end];
      heap[end] = swap;
      siftDown(heap, end, order);
    }
    long[] result = new long[size];
    for (int i = 0; i < size; i++) {
      result[i] = refs[heap[i]];
    }
    return result;
  }

  private static void siftUp(int[] heap, int at, java.util.function.IntBinaryOperator order) {
    while (at > 0) {
      int parent = (at - 1) >>> 1;
      if (order.applyAsInt(heap[at], heap[parent]) <= 0) {
        return;
      }
      int swap = heap[at];
      heap[at] = heap[parent];
      heap[parent] = swap;
      at = parent;
    }
  }

  private static void siftDown(int[] heap, int size, java.util.function.IntBinaryOperator order) {
    int at = 0;
    while (true) {
      int largest = at;
      int left = 2 * at + 1;
      int right = left + 1;
      if (left < size && order.applyAsInt(heap[left], heap[largest]) > 0) {
        largest = left;
      }
      if (right < size && order.applyAsInt(heap[right], heap[largest]) > 0) {
        largest = right;
      }
      if (largest == at) {
        return;
      }
      int swap = heap[at];
      heap[at] = heap[largest];
      heap[largest] = swap;
      at = largest;
    }
  }

  @FunctionalInterface
  private interface RowComparator {
    int compare(long a, long b);
  }

  /**
   * SQL's order of doubles: {@code -0.0} and {@code 0.0} are equal (a tie the next key decides, as
   * {@code =} says), NaN after every other value and equal to itself.
   */
  static int compareDoubles(double left, double right) {
    return left == right ? 0 : Double.compare(left, right);
  }

  /**
   * @param nullsFirst whether a null comes before every value (else after), whatever the direction
   * @param ranks for a string column whose every batch codes into one dictionary, the order of each
   *     dictionary entry among them ({@link #ranksOf}); null otherwise
   */
  static int compare(Column left, int leftRow, Column right, int rightRow, boolean descending, boolean nullsFirst,
      int[] ranks) {
    boolean leftNull = left.isNull(leftRow);
    boolean rightNull = right.isNull(rightRow);
    if (leftNull || rightNull) {
      return leftNull == rightNull ? 0 : leftNull != nullsFirst ? 1 : -1;
    }
    int cmp = switch (left.type().kind()) {
      case FLOAT64 -> compareDoubles(left.getDouble(leftRow), right.getDouble(rightRow));
      case STRING -> ranks != null
          ? Integer.compare(ranks[((DictionaryColumn) left).code(leftRow)], ranks[((DictionaryColumn) right).code(rightRow)])
          : compareStrings(left, leftRow, right, rightRow);
      default -> Long.compare(left.getLong(leftRow), right.getLong(rightRow));
    };
    return descending ? -cmp : cmp;
  }

  /**
   * When column {@code column} of every batch codes into one dictionary, each entry's position in
   * the order of the entries' strings (equal strings share one), so rows compare by two array reads
   * instead of their bytes; else null. The dictionary is sorted once, at the cost of a handful of
   * rows' comparisons when it is small against the rows, and not ranked when it is not. The arrays are
   * charged to {@code heap}: the ranks for the rest of the sort, the entries being sorted meanwhile.
   */
  private static int[] ranksOf(List<Batch> batches, int column, HeapCharge heap) {
    VarCharColumn dictionary = null;
    long rows = 0;
    for (Batch batch : batches) {
      if (!(batch.column(column) instanceof DictionaryColumn codes)
          || (dictionary != null && codes.dictionary().arrow() != dictionary.arrow())) {
        return null;
      }
      dictionary = codes.dictionary();
      rows += batch.rowCount();
    }
    if (dictionary == null || !TableBuilder.keepsEncoded(dictionary.length(), rows)) {
      return null;
    }
    VarCharColumn values = dictionary;
    int count = values.length();
    heap.reserve((long) RANKING_BYTES * count);
    long[] entries = new long[count];
    for (int i = 0; i < count; i++) {
      entries[i] = i;
    }
    mergeSort(entries, new long[count], 0, count, (a, b) -> compareStrings(values, (int) a, values, (int) b));
    int[] ranks = new int[count];
    for (int i = 0, rank = 0; i < count; i++) {
      if (i > 0 && compareStrings(values, (int) entries[i - 1], values, (int) entries[i]) != 0) {
        rank++;
      }
      ranks[(int) entries[i]] = rank;
    }
    heap.release((long) (RANKING_BYTES - 4) * count); // the entries and their scratch are dropped; the ranks stay
    return ranks;
  }

  private static int compareStrings(Column left, int leftRow, Column right, int rightRow) {
    MemorySegment a = stringBytes(left, leftRow);
    MemorySegment b = stringBytes(right, rightRow);
    long mismatch = a.mismatch(b);
    if (mismatch < 0) {
      return 0;
    }
    if (mismatch == a.byteSize() || mismatch == b.byteSize()) {
      return Long.compare(a.byteSize(), b.byteSize());
    }
    return Integer.compare(a.get(ValueLayout.JAVA_BYTE, mismatch) & 0xFF, b.get(ValueLayout.JAVA_BYTE, mismatch) & 0xFF);
  }

  private static MemorySegment stringBytes(Column column, int row) {
    return switch (column) {
      case VarCharColumn strings -> strings.slice(row);
      case DictionaryColumn codes -> codes.dictionary().slice(codes.code(row));
      default -> throw new IllegalArgumentException("not a string column: " + column);
    };
  }

  private static void mergeSort(long[] a, long[] scratch, int from, int to, RowComparator comparator) {
    if (to - from <= 16) {
      for (int i = from + 1; i < to; i++) {
        long x = a[i];
        int j = i - 1;
        while (j >= from && comparator.compare(a[j], x) > 0) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = x;
      }
      return;
    }
    if (to - from >= CHECKPOINT_ROWS) {
      ExecutionControl.checkpoint();
    }
    int mid = (from + to) >>> 1;
    mergeSort(a, scratch, from, mid, comparator);
    mergeSort(a, scratch, mid, to, comparator);
    if (comparator.compare(a[mid - 1], a[mid]) <= 0) {
      return;
    }
    System.arraycopy(a, from, scratch, from, to - from);
    int i = from;
    int j = mid;
    for (int k = from; k < to; k++) {
      if (j >= to || (i < mid && comparator.compare(scratch[i], scratch[j]) <= 0)) {
        a[k] = scratch[i++];
      } else {
        a[k] = scratch[j++];
      }
    }
  }
}
