package dev.memwall.core.plan;

import dev.memwall.core.Closing;
import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.LongKernel;
import dev.memwall.core.frequent.FrequentItem;
import dev.memwall.core.frequent.SummarySizing;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.Step.FrequentValues;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One worker's Space-Saving summaries of a {@link FrequentValues} step's value over the rows that
 * reach it (null values skipped): one summary, or one per value of the step's group key (the rows
 * whose key is null forming one group), and the step's answer from all workers' summaries merged. An
 * integral value (INT32, INT64, DATE, TIMESTAMP, BOOLEAN, DECIMAL) is evaluated by its kernel and
 * counted as a long; a string column is counted as {@link ValueSummary} says.
 *
 * <p>Memory: every summary is charged to the execution's memory until {@link #close}; grouped, that
 * is one summary of the step's counters per group a worker sees, so the step's memory grows with the
 * groups (a budget too small refuses it by name). Thread safety: one per worker; {@link #answer}
 * runs after the workers have stopped.
 */
final class FrequentCollector implements AutoCloseable {
  private final LongKernel longs;
  private final int stringColumn;
  private final LongKernel groupKeys;
  private final SummarySizing sizing;
  private final EngineMemory memory;
  /** The summary of an ungrouped step, or of the rows whose group key is null. */
  private ValueSummary single;
  private final Map<Long, ValueSummary> groups = new HashMap<>();

  /** A worker's summaries of {@code step}'s value, each laid out as {@code sizing}. */
  FrequentCollector(Binder binder, FrequentValues step, SummarySizing sizing, EngineMemory memory) {
    boolean strings = valueType(binder, step).kind() == ColumnType.Kind.STRING;
    this.longs = strings ? null : binder.bindLong(step.value());
    this.stringColumn = strings ? binder.columnIndex((Expr.ColumnRef) step.value()) : -1;
    this.groupKeys = step.group() == null ? null : binder.bindLong(step.group());
    this.sizing = sizing;
    this.memory = memory;
    if (step.group() == null) {
      single = new ValueSummary(sizing, strings, true, memory);
    }
  }

  /**
   * The type of the step's value: integral, or a string column; and, for a grouped step, checks its
   * group key is integral.
   *
   * @throws IllegalArgumentException naming the value for FLOAT64 or a computed string, or the key
   *     when it is not integral
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
    if (step.group() != null && !binder.typeOf(step.group()).isIntegral()) {
      throw new IllegalArgumentException("cannot group frequent values by " + step.group() + ": it is "
          + binder.typeOf(step.group()) + ", and the group key must be integral, a date, a timestamp or a decimal");
    }
    return type;
  }

  /** The result's column types: the group key's (when grouped), the value's, then the count, error and flag. */
  static List<ColumnType> resultTypes(Binder binder, FrequentValues step) {
    List<ColumnType> types = new ArrayList<>();
    ColumnType value = valueType(binder, step);
    if (step.group() != null) {
      types.add(binder.typeOf(step.group()));
    }
    types.addAll(List.of(value, ColumnType.INT64, ColumnType.INT64, ColumnType.BOOLEAN));
    return types;
  }

  void consume(Chunk chunk) {
    long[] keys = groupKeys == null ? null : groupKeys.evaluate(chunk);
    boolean[] keyNulls = groupKeys != null && groupKeys.anyNull() ? groupKeys.nulls() : null;
    if (longs != null) {
      long[] values = longs.evaluate(chunk);
      boolean[] nulls = longs.anyNull() ? longs.nulls() : null;
      for (int i = 0; i < chunk.selected(); i++) {
        int k = chunk.position(i);
        if (nulls == null || !nulls[k]) {
          summaryOf(keys, keyNulls, k).offer(values[k]);
        }
      }
      return;
    }
    Column column = chunk.batch().column(stringColumn);
    for (int i = 0; i < chunk.selected(); i++) {
      int k = chunk.position(i);
      int row = chunk.start() + k;
      if (!column.isNull(row)) {
        summaryOf(keys, keyNulls, k).offerString(column, row);
      }
    }
  }

  /** The summary of the group at position {@code k}, created on its first row. */
  private ValueSummary summaryOf(long[] keys, boolean[] keyNulls, int k) {
    if (keys == null || keyNulls != null && keyNulls[k]) {
      if (single == null) {
        single = new ValueSummary(sizing, longs == null, false, memory);
      }
      return single;
    }
    ValueSummary summary = groups.get(keys[k]);
    if (summary == null) {
      summary = new ValueSummary(sizing, longs == null, false, memory);
      groups.put(keys[k], summary);
    }
    return summary;
  }

  /**
   * Merges every worker's summaries into the first's (checking the query's control between merges)
   * and returns the step's rows: grouped, by ascending group key, the null key's group last; within a
   * group (or ungrouped), largest count first: the value, its count, the count's error bound and
   * whether the value is guaranteed (in the top k, or above the support).
   */
  static Table answer(List<FrequentCollector> workers, FrequentValues step, List<ColumnType> types,
      EngineMemory memory) {
    FrequentCollector first = workers.getFirst();
    for (FrequentCollector worker : workers.subList(1, workers.size())) {
      ExecutionControl.current().check();
      first.single = mergeInto(first.single, worker.single);
      worker.single = null;
      for (Map.Entry<Long, ValueSummary> group : worker.groups.entrySet()) {
        first.groups.put(group.getKey(), mergeInto(first.groups.get(group.getKey()), group.getValue()));
      }
      worker.groups.clear();
    }
    try (TableBuilder builder = new TableBuilder(step.columnNames(), types, memory.arrow())) {
      List<Long> keys = new ArrayList<>(first.groups.keySet());
      keys.sort(null);
      for (long key : keys) {
        ExecutionControl.current().check();
        appendRows(builder, step, first.groups.get(key), key, false);
      }
      if (first.single != null) {
        appendRows(builder, step, first.single, 0, step.group() != null);
      }
      return builder.build();
    }
  }

  /** {@code into} with {@code from} merged in, {@code from} closed; either may be null. */
  private static ValueSummary mergeInto(ValueSummary into, ValueSummary from) {
    if (into == null || from == null) {
      return into == null ? from : into;
    }
    try (from) {
      into.merge(from);
    }
    return into;
  }

  private static void appendRows(TableBuilder builder, FrequentValues step, ValueSummary summary, long group,
      boolean nullGroup) {
    for (FrequentItem item : summary.items(step)) {
      if (nullGroup) {
        builder.appendNull();
      } else if (step.group() != null) {
        builder.appendLong(group);
      }
      summary.appendValue(builder, item.key());
      builder.appendLong(item.count()).appendLong(item.error()).appendLong(item.guaranteed() ? 1 : 0).endRow();
    }
  }

  @Override
  public void close() {
    List<ValueSummary> all = new ArrayList<>(groups.values());
    groups.clear();
    if (single != null) {
      all.add(single);
      single = null;
    }
    Closing.closeAll(all);
  }
}
