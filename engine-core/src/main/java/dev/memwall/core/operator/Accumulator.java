package dev.memwall.core.operator;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.DoubleKernel;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.LongKernel;
import dev.memwall.core.memory.ArrowSegments;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.TableBuilder;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One aggregate of a {@link HashAggregator}: its argument's kernel and its per-group state (the
 * sum, minimum or maximum, and the count of null arguments) in two {@link GroupColumns} columns.
 * SUM and AVG of the same argument share one accumulator's state.
 *
 * <p>Thread safety: none; one per aggregation worker.
 */
final class Accumulator {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE;

  final Aggregate aggregate;
  final ColumnType resultType;
  private final LongKernel longs;
  private final DoubleKernel doubles;
  private final double unit;
  /**
   * The sums, minima or maxima by group (the source's, when shared); the aggregator adds plain sums
   * into it through {@link LaneSums}. Set by {@link #claimValues}.
   */
  GroupColumns.Column values;
  /** Rows with a null argument by group; set by {@link #claimNullCounts}. */
  private GroupColumns.Column nullRows;

  Accumulator(Aggregate aggregate, Binder binder) {
    this.aggregate = aggregate;
    Expr argument = aggregate.argument();
    ColumnType argumentType = argument == null ? null : binder.typeOf(argument);
    this.resultType = aggregate.resultType(argumentType); // refuses arguments of types the function does not take
    boolean integral = argumentType != null && argumentType.isIntegral();
    this.longs = integral ? binder.bindLong(argument) : null;
    this.doubles = argumentType != null && argumentType.kind() == ColumnType.Kind.FLOAT64
        ? binder.bindDouble(argument) : null;
    this.unit = integral ? Math.pow(10, -argumentType.scale()) : 1;
  }

  private boolean isDouble() {
    return doubles != null;
  }

  /**
   * Whether this aggregate can read {@code other}'s sums instead of keeping its own: SUM and AVG
   * of the same argument accumulate the same sum and non-null count (TPC-H Q1 asks for both).
   */
  boolean canShare(Accumulator other) {
    return other.sumSource == other && isAdditive() && other.isAdditive()
        && aggregate.argument().equals(other.aggregate.argument());
  }

  private boolean isAdditive() {
    return aggregate.function() == Aggregate.Function.SUM || aggregate.function() == Aggregate.Function.AVG;
  }

  void shareSumsOf(Accumulator other) {
    sumSource = other;
  }

  /** Whether this accumulator keeps state of its own (it does not read another's sums). */
  boolean ownsState() {
    return sumSource == this;
  }

  /**
   * Takes this accumulator's value column from {@code columns}, or aliases its source's when shared.
   * All accumulators claim their values before any claims its null counts, so that with
   * {@link AggregateLayout#ROWS} the values of a group, which every row updates, lie side by side.
   */
  void claimValues(GroupColumns columns) {
    values = ownsState() ? columns.claim() : sumSource.values;
  }

  /** Takes this accumulator's null-count column from {@code columns}, or aliases its source's. */
  void claimNullCounts(GroupColumns columns) {
    nullRows = ownsState() ? columns.claim() : sumSource.nullRows;
  }

  /** The accumulator whose sums and null counts this one reports: itself unless shared. */
  private Accumulator sumSource = this;

  void initialize(int from, int to) {
    values.ensureCapacity(to);
    nullRows.ensureCapacity(to);
    long initial = switch (aggregate.function()) {
      case MIN -> isDouble() ? Double.doubleToRawLongBits(Double.POSITIVE_INFINITY) : Long.MAX_VALUE;
      case MAX -> isDouble() ? Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY) : Long.MIN_VALUE;
      default -> 0;
    };
    for (int g = from; g < to; g++) {
      values.set(g, initial);
    }
  }

  /** {@link #update} for the one group of an aggregation without keys: sums in a register. */
  void updateSingleGroup(Chunk chunk, int[] positions, int n) {
    if (sumSource != this) {
      return;
    }
    boolean additive = aggregate.function() == Aggregate.Function.SUM || aggregate.function() == Aggregate.Function.AVG;
    if (!additive || longs == null || aggregate.argument() == null) {
      update(chunk, positions, n, singleGroupIds);
      return;
    }
    long[] v = longs.evaluate(chunk);
    boolean anyNull = longs.anyNull();
    boolean[] nulls = longs.nulls();
    long sum = values.get(0); // continue the running total: overflow means the total in row order left int64
    long nullCount = 0;
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      if (anyNull && nulls[k]) {
        nullCount++;
      } else {
        sum = Math.addExact(sum, v[k]);
      }
    }
    values.set(0, sum);
    nullRows.set(0, nullRows.get(0) + nullCount);
  }

  private final int[] singleGroupIds = new int[Chunk.CAPACITY];

  /**
   * For an exact SUM or AVG of its own whose argument has no nulls in {@code chunk}: the values,
   * for the caller to add together with the other sums. Null when this aggregate needs
   * {@link #update} instead.
   */
  long[] plainSumValues(Chunk chunk) {
    if (sumSource != this || longs == null || !isAdditive()) {
      return null;
    }
    long[] v = longs.evaluate(chunk);
    return longs.anyNull() ? null : v;
  }

  /**
   * Adds the chunk's rows at {@code positions} into their groups' state. The double loops are a
   * specialization of the long ones: kept apart so every loop reads one primitive array and stays
   * monomorphic.
   */
  void update(Chunk chunk, int[] positions, int n, int[] groupIds) {
    if (aggregate.argument() == null || sumSource != this) {
      return; // COUNT(*) reads the shared row counts
    }
    MemorySegment acc = values.slots();
    long base = values.base();
    long stride = values.stride();
    boolean anyNull;
    boolean[] nulls;
    if (isDouble()) {
      double[] v = doubles.evaluate(chunk);
      anyNull = doubles.anyNull();
      nulls = doubles.nulls();
      switch (aggregate.function()) {
        case SUM, AVG -> {
          for (int i = 0; i < n; i++) {
            int k = positions[i];
            if (!(anyNull && nulls[k])) {
              long at = base + groupIds[k] * stride;
              acc.setAtIndex(DOUBLE, at, acc.getAtIndex(DOUBLE, at) + v[k]);
            }
          }
        }
        case MIN, MAX -> {
          boolean min = aggregate.function() == Aggregate.Function.MIN;
          for (int i = 0; i < n; i++) {
            int k = positions[i];
            if (!(anyNull && nulls[k])) {
              long at = base + groupIds[k] * stride;
              double current = acc.getAtIndex(DOUBLE, at);
              acc.setAtIndex(DOUBLE, at, min ? Math.min(current, v[k]) : Math.max(current, v[k]));
            }
          }
        }
        case COUNT -> { }
      }
    } else if (longs != null) {
      long[] v = longs.evaluate(chunk);
      anyNull = longs.anyNull();
      nulls = longs.nulls();
      switch (aggregate.function()) {
        case SUM, AVG -> {
          // Sums without nulls in the chunk went through LaneSums instead (see plainSumValues).
          for (int i = 0; i < n; i++) {
            int k = positions[i];
            if (!(anyNull && nulls[k])) {
              long at = base + groupIds[k] * stride;
              acc.setAtIndex(LONG, at, Math.addExact(acc.getAtIndex(LONG, at), v[k]));
            }
          }
        }
        case MIN, MAX -> {
          boolean min = aggregate.function() == Aggregate.Function.MIN;
          for (int i = 0; i < n; i++) {
            int k = positions[i];
            if (!(anyNull && nulls[k])) {
              long at = base + groupIds[k] * stride;
              long current = acc.getAtIndex(LONG, at);
              acc.setAtIndex(LONG, at, min ? Math.min(current, v[k]) : Math.max(current, v[k]));
            }
          }
        }
        case COUNT -> { }
      }
    } else {
      anyNull = false;
      nulls = null;
      countStringNulls(chunk, positions, n, groupIds);
    }
    if (anyNull) {
      long nullBase = nullRows.base();
      for (int i = 0; i < n; i++) {
        int k = positions[i];
        if (nulls[k]) {
          long at = nullBase + groupIds[k] * stride;
          acc.setAtIndex(LONG, at, acc.getAtIndex(LONG, at) + 1);
        }
      }
    }
  }

  /** COUNT of a string column: only its nulls matter. */
  private void countStringNulls(Chunk chunk, int[] positions, int n, int[] groupIds) {
    Column column = chunk.batch().column(((Expr.ColumnRef) aggregate.argument()).name());
    if (!column.hasNulls()) {
      return;
    }
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      if (column.isNull(chunk.start() + k)) {
        int g = groupIds[k];
        nullRows.set(g, nullRows.get(g) + 1);
      }
    }
  }

  /** Group {@code g}'s value slot (a double's bits for FLOAT64), as spilled partial state. */
  long stateValue(int g) {
    return values.get(g);
  }

  /** Group {@code g}'s count of null arguments, as spilled partial state. */
  long stateNulls(int g) {
    return nullRows.get(g);
  }

  /**
   * Folds a spilled partial state ({@link #stateValue} and {@link #stateNulls} of a group of an
   * aggregator of the same shape) into group {@code g}, as {@link #merge} folds another aggregator's group.
   */
  void mergeState(int g, long value, long nulls) {
    nullRows.set(g, nullRows.get(g) + nulls);
    switch (aggregate.function()) {
      case SUM, AVG -> {
        if (isDouble()) {
          values.setDouble(g, values.getDouble(g) + Double.longBitsToDouble(value));
        } else {
          values.set(g, Math.addExact(values.get(g), value));
        }
      }
      case MIN -> {
        if (isDouble()) {
          values.setDouble(g, Math.min(values.getDouble(g), Double.longBitsToDouble(value)));
        } else {
          values.set(g, Math.min(values.get(g), value));
        }
      }
      case MAX -> {
        if (isDouble()) {
          values.setDouble(g, Math.max(values.getDouble(g), Double.longBitsToDouble(value)));
        } else {
          values.set(g, Math.max(values.get(g), value));
        }
      }
      case COUNT -> { }
    }
  }

  /** Folds {@code other}'s group {@code og} (an aggregator of the same shape) into group {@code g}. */
  void merge(int g, Accumulator other, int og) {
    if (sumSource != this) {
      return;
    }
    // MIN/MAX start from their identity (±infinity), SUM from 0, so groups without values merge as no-ops.
    mergeState(g, other.values.get(og), other.nullRows.get(og));
  }

  /**
   * Writes the results of groups {@code [first, first + count)} to rows {@code [at, at + count)} of
   * {@code target}, a vector of {@link #resultType} with room for them; {@code rows} holds each
   * group's row count. SQL nulls: AVG, SUM, MIN and MAX of a group without non-null values.
   */
  void writeResults(FieldVector target, GroupColumns.Column rows, int first, int count, int at) {
    GroupColumns.Column values = sumSource.values;
    GroupColumns.Column nullRows = sumSource.nullRows;
    if (aggregate.function() == Aggregate.Function.AVG) {
      Float8Vector averages = (Float8Vector) target;
      for (int i = 0; i < count; i++) {
        int g = first + i;
        long nonNull = rows.get(g) - nullRows.get(g);
        if (nonNull == 0) {
          averages.setNull(at + i);
        } else {
          averages.set(at + i, (isDouble() ? values.getDouble(g) : values.get(g) * unit) / nonNull);
        }
      }
      return;
    }
    // COUNT, SUM, MIN, MAX: the slots go to the vector's buffer as they are (a double's slot holds
    // its bits), run at a time, with the null rows unmarked afterwards
    BaseFixedWidthVector fixed = (BaseFixedWidthVector) target;
    TableBuilder.setNonNull(fixed, at, count);
    MemorySegment data = ArrowSegments.of(fixed.getDataBuffer());
    MemorySegment slots = rows.slots(); // one buffer holds every column of the aggregation's state
    long stride = rows.stride();
    long rowsAt = rows.base() + (long) first * stride;
    long nullsAt = nullRows.base() + (long) first * stride;
    long valuesAt = values.base() + (long) first * stride;
    boolean counting = aggregate.function() == Aggregate.Function.COUNT;
    int width = TableBuilder.valueBytes(fixed);
    for (int i = 0; i < count; i++, rowsAt += stride, nullsAt += stride, valuesAt += stride) {
      long nonNull = slots.getAtIndex(LONG, rowsAt) - slots.getAtIndex(LONG, nullsAt);
      if (counting) {
        data.setAtIndex(LONG, at + i, nonNull);
      } else if (nonNull == 0) {
        BitVectorHelper.unsetBit(fixed.getValidityBuffer(), at + i);
      } else {
        TableBuilder.setIntegral(data, width, at + i, slots.getAtIndex(LONG, valuesAt));
      }
    }
  }

}
