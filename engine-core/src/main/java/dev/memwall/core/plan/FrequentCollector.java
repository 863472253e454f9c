package dev.memwall.core.plan;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.LongKernel;
import dev.memwall.core.frequent.FrequentItem;
import dev.memwall.core.frequent.SpaceSaving;
import dev.memwall.core.frequent.StringSpaceSaving;
import dev.memwall.core.frequent.SummarySizing;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.Step.FrequentValues;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.core.vector.VarCharColumn;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One worker's Space-Saving summary of a {@link FrequentValues} step's value over the rows that reach
 * it (nulls skipped), and the step's answer from all workers' summaries merged. An integral value
 * (INT32, INT64, DATE, TIMESTAMP, BOOLEAN, DECIMAL) is evaluated by its kernel and counted as a long;
 * a string column is counted by the hash of its bytes ({@link StringSpaceSaving}), a dictionary
 * column's entries hashed once per dictionary.
 *
 * <p>Ownership: the summary is charged to the execution's memory until {@link #close}. Thread
 * safety: one per worker; {@link #answer} runs after the workers have stopped.
 */
final class FrequentCollector implements AutoCloseable {
  private final LongKernel longs;
  private final SpaceSaving summary;
  private final int stringColumn;
  private final StringSpaceSaving strings;

  /** A worker's summary of {@code step}'s value, laid out as {@code sizing}. */
  FrequentCollector(Binder binder, FrequentValues step, SummarySizing sizing, EngineMemory memory) {
    ColumnType type = valueType(binder, step);
    if (type.kind() == ColumnType.Kind.STRING) {
      this.longs = null;
      this.stringColumn = binder.columnIndex((Expr.ColumnRef) step.value());
      this.strings = StringSpaceSaving.create(memory, sizing);
      this.summary = strings.summary();
    } else {
      this.longs = binder.bindLong(step.value());
      this.stringColumn = -1;
      this.strings = null;
      this.summary = SpaceSaving.create(memory, sizing);
    }
  }

  /**
   * The type of the step's value: integral, or a string column.
   *
   * @throws IllegalArgumentException naming the value for FLOAT64 or a computed string
   */
  static ColumnType valueType(Binder binder, FrequentValues step) {
    ColumnType type = binder.typeOf(step.value());
    if (type.kind() == ColumnType.Kind.STRING && !(step.value() instanceof Expr.ColumnRef)) {
      throw new IllegalArgumentException("cannot count the values of " + step.value()
          + ": a string value must be a column, not a computed string");
    }
    if (type.kind() == ColumnType.Kind.FLOAT64) {
      throw new IllegalArgumentException("cannot count the values of " + step.value()
          + ": it is FLOAT64, and frequent values are counted for integral, date, timestamp, boolean, decimal or"
          + " string values");
    }
    return type;
  }

  void consume(Chunk chunk) {
    if (strings == null) {
      long[] values = longs.evaluate(chunk);
      boolean[] nulls = longs.anyNull() ? longs.nulls() : null;
      for (int i = 0; i < chunk.selected(); i++) {
        int k = chunk.position(i);
        if (nulls == null || !nulls[k]) {
          summary.offer(values[k]);
        }
      }
      return;
    }
    Column column = chunk.batch().column(stringColumn);
    int start = chunk.start();
    switch (column) {
      case DictionaryColumn codes -> {
        VarCharColumn dictionary = codes.dictionary();
        long[] hashes = strings.entryHashes(dictionary);
        MemorySegment bytes = dictionary.bytes();
        for (int i = 0; i < chunk.selected(); i++) {
          int row = start + chunk.position(i);
          if (!codes.isNull(row)) {
            int code = codes.code(row);
            strings.offerHashed(hashes[code], bytes, dictionary.offset(code), dictionary.byteLength(code));
          }
        }
      }
      case VarCharColumn plain -> {
        MemorySegment bytes = plain.bytes();
        for (int i = 0; i < chunk.selected(); i++) {
          int row = start + chunk.position(i);
          if (!plain.isNull(row)) {
            strings.offer(bytes, plain.offset(row), plain.byteLength(row));
          }
        }
      }
      default -> throw new IllegalStateException("column " + stringColumn + " is " + column.type()
          + ", not strings"); // the binder typed it STRING
    }
  }

  /**
   * Merges every worker's summary into the first (checking the query's control between merges) and
   * returns the step's rows, largest count first: the value, its count, the count's error bound and
   * whether the value is guaranteed (in the top k, or above the support).
   */
  static Table answer(List<FrequentCollector> workers, FrequentValues step, ColumnType type, EngineMemory memory) {
    FrequentCollector first = workers.getFirst();
    for (FrequentCollector worker : workers.subList(1, workers.size())) {
      ExecutionControl.current().check();
      if (first.strings != null) {
        first.strings.merge(worker.strings);
      } else {
        first.summary.merge(worker.summary);
      }
    }
    List<FrequentItem> items = step.topK() ? first.summary.topK(step.k()).items()
        : first.summary.frequent(step.phi()).items();
    try (TableBuilder builder = new TableBuilder(step.columnNames(),
        List.of(type, ColumnType.INT64, ColumnType.INT64, ColumnType.BOOLEAN), memory.arrow())) {
      for (FrequentItem item : items) {
        if (first.strings != null) {
          builder.appendString(first.strings.utf8(item.key()));
        } else {
          builder.appendLong(item.key());
        }
        builder.appendLong(item.count()).appendLong(item.error()).appendLong(item.guaranteed() ? 1 : 0).endRow();
      }
      return builder.build();
    }
  }

  @Override
  public void close() {
    if (strings != null) {
      strings.close();
    } else {
      summary.close();
    }
  }
}
