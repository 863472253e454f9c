package dev.memwall.core.operator;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.DoubleKernel;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.LongKernel;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.EngineMemory;
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
import org.apache.arrow.vector.FieldVector;

/**
 * Grouped aggregation, one chunk at a time: a {@link GroupTable} maps each row's key tuple to a
 * group id, then each aggregate updates its column of accumulators (DSM) by group id in a tight
 * loop. Without keys there is a single group and the result has exactly one row, as in SQL.
 *
 * <p>Keys are integral expressions (grouped by value, with decimals at their own scale) or string
 * columns (grouped by interned id). Null keys form one group, as in SQL. Parallel workers each
 * aggregate their share and are {@linkplain #mergeFrom merged} at the end.
 *
 * <p>Ownership: accumulators and the table are off-heap in the given {@link EngineMemory}; close
 * the aggregator. Thread safety: none; one per worker, bound with that worker's {@link Binder}.
 */
public final class HashAggregator implements AutoCloseable {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE;

  private final EngineMemory memory;
  private final List<NamedExpr> keys;
  private final List<Aggregate> aggregates;
  private final List<ColumnType> keyTypes = new ArrayList<>();
  private final KeySource[] keySources;
  private final Accumulator[] accumulators;
  private final GroupTable table;
  private final StringIds strings;
  private final GroupColumns groupColumns;
  private final GroupColumns.Column rows;
  private final long[][] keyColumns;
  private final int[] positions = new int[Chunk.CAPACITY];
  private final int[] groupIds = new int[Chunk.CAPACITY];
  private final DirectGroups directGroups;
  private final LaneSums laneSums = new LaneSums();
  private final long[][] sumValues;
  private final MemorySegment[] sumTargets;
  private int initializedGroups;

  /**
   * @param strings shared by all workers of this aggregation, so string keys intern alike
   * @throws IllegalArgumentException for keys or arguments of unsupported types (FLOAT64 keys,
   *     SUM of dates or strings, MIN/MAX of strings)
   */
  public HashAggregator(EngineMemory memory, Binder binder, List<NamedExpr> keys, List<Aggregate> aggregates,
      StringIds strings) {
    this.memory = memory;
    this.keys = List.copyOf(keys);
    this.aggregates = List.copyOf(aggregates);
    this.strings = strings;
    if (keys.size() > 63) {
      throw new IllegalArgumentException("at most 63 grouping keys, got " + keys.size());
    }
    this.keySources = new KeySource[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      Expr expr = keys.get(i).expr();
      ColumnType type = binder.typeOf(expr);
      keyTypes.add(type);
      keySources[i] = switch (type.kind()) {
        case STRING -> new StringKey(binder.columnIndex(requireColumn(expr)), this.strings);
        case FLOAT64 -> throw new IllegalArgumentException("cannot group by the double " + expr);
        default -> new LongKey(binder.bindLong(expr));
      };
    }
    this.keyColumns = new long[keys.size() + 1][Chunk.CAPACITY];
    this.table = new GroupTable(memory, keys.size() + 1);
    this.groupColumns = new GroupColumns(memory, 1 + 2 * aggregates.size(), 64);
    this.rows = groupColumns.claim();
    this.directGroups = new DirectGroups();
    this.sumValues = new long[aggregates.size() + 1][];
    this.sumTargets = new MemorySegment[aggregates.size() + 1];
    this.accumulators = new Accumulator[aggregates.size()];
    for (int i = 0; i < aggregates.size(); i++) {
      accumulators[i] = new Accumulator(aggregates.get(i), binder, groupColumns);
      for (int j = 0; j < i; j++) {
        if (accumulators[i].canShare(accumulators[j])) {
          accumulators[i].shareSumsOf(accumulators[j]);
          break;
        }
      }
    }
  }

  /** Adds the selected rows of {@code chunk}. */
  public void consume(Chunk chunk) {
    int n = chunk.copySelection(positions);
    if (n == 0) {
      return;
    }
    if (keySources.length == 0) {
      if (table.groups() == 0) {
        table.findOrInsert(new long[table.keyWidth()]);
        prepareNewGroups();
      }
      rows.set(0, rows.get(0) + n);
      for (Accumulator accumulator : accumulators) {
        accumulator.updateSingleGroup(chunk, positions, n);
      }
      return;
    }
    if (!directGroups.assign(chunk, positions, n, groupIds)) {
      long[] nullMask = keyColumns[keySources.length];
      for (int i = 0; i < n; i++) {
        nullMask[positions[i]] = 0;
      }
      for (int j = 0; j < keySources.length; j++) {
        keySources[j].fill(chunk, positions, n, keyColumns[j], nullMask, 1L << j);
      }
      table.findOrInsert(keyColumns, positions, n, groupIds);
    }
    prepareNewGroups();
    int sums = 0;
    for (Accumulator accumulator : accumulators) {
      long[] values = accumulator.plainSumValues(chunk);
      if (values != null) {
        sumValues[sums] = values;
        sumTargets[sums++] = accumulator.values.segment();
      } else {
        accumulator.update(chunk, positions, n, groupIds);
      }
    }
    sumValues[sums] = LaneSums.ONES;
    sumTargets[sums++] = rows.segment();
    laneSums.add(sumValues, sumTargets, sums, positions, n, groupIds, table.groups());
  }

  /**
   * The fast path for grouping on dictionary-encoded strings with a small combined domain (TPC-H
   * Q1's flags): the row's codes, combined, index a direct array of group ids, so no hashing or key
   * comparison happens per row. The array is rebuilt whenever the dictionaries change (a new file)
   * and is only used for chunks without null keys.
   */
  private final class DirectGroups {
    private static final int MAX_DOMAIN = 1 << 16;
    private final int[] columns;
    private final FieldVector[] dictionaries;
    private final int[] cardinalities;
    private final DictionaryColumn[] current;
    private final int[] combinedCodes = new int[Chunk.CAPACITY];
    private final int[] codes = new int[Chunk.CAPACITY];
    private int[] groupOfCode;
    private boolean eligible;

    DirectGroups() {
      boolean allStrings = keySources.length > 0;
      for (KeySource source : keySources) {
        allStrings &= source instanceof StringKey;
      }
      columns = allStrings ? new int[keySources.length] : null;
      for (int j = 0; allStrings && j < keySources.length; j++) {
        columns[j] = ((StringKey) keySources[j]).columnIndex;
      }
      dictionaries = new FieldVector[keySources.length];
      cardinalities = new int[keySources.length];
      current = new DictionaryColumn[keySources.length];
    }

    /** Fills {@code groupIds} for the listed rows and returns true, or returns false when not applicable. */
    boolean assign(Chunk chunk, int[] positions, int n, int[] groupIds) {
      if (columns == null || !prepare(chunk)) {
        return false;
      }
      int start = chunk.start();
      int[] combined = combinedCodes;
      current[0].readCodes(start, positions, n, combined);
      for (int j = 1; j < current.length; j++) {
        current[j].readCodes(start, positions, n, codes);
        int cardinality = cardinalities[j];
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          combined[k] = combined[k] * cardinality + codes[k];
        }
      }
      int[] groups = groupOfCode;
      for (int i = 0; i < n; i++) {
        int k = positions[i];
        int group = groups[combined[k]];
        groupIds[k] = group >= 0 ? group : firstGroupOf(combined[k], start + k);
      }
      return true;
    }

    /** Creates (or finds, after a dictionary change) the group of a combination seen for the first time. */
    private int firstGroupOf(int combinedCode, int row) {
      long[] tuple = new long[table.keyWidth()];
      for (int j = 0; j < current.length; j++) {
        tuple[j] = ((StringKey) keySources[j]).idsOf(current[j].dictionary())[current[j].code(row)];
      }
      int group = table.findOrInsert(tuple);
      groupOfCode[combinedCode] = group;
      return group;
    }

    private boolean prepare(Chunk chunk) {
      boolean changed = false;
      for (int j = 0; j < columns.length; j++) {
        if (!(chunk.batch().column(columns[j]) instanceof DictionaryColumn codes) || codes.hasNulls()) {
          return false;
        }
        current[j] = codes;
        if (codes.dictionary().arrow() != dictionaries[j]) {
          dictionaries[j] = codes.dictionary().arrow();
          cardinalities[j] = codes.dictionary().length();
          changed = true;
        }
      }
      if (changed) {
        long domain = 1;
        for (int cardinality : cardinalities) {
          domain *= Math.max(1, cardinality);
        }
        eligible = domain <= MAX_DOMAIN;
        if (eligible) {
          groupOfCode = new int[(int) domain];
          java.util.Arrays.fill(groupOfCode, -1);
        }
      }
      return eligible;
    }
  }

  private void prepareNewGroups() {
    int groups = table.groups();
    if (groups == initializedGroups) {
      return;
    }
    rows.ensureCapacity(groups);
    for (Accumulator accumulator : accumulators) {
      accumulator.initialize(initializedGroups, groups);
    }
    initializedGroups = groups;
  }

  /** Folds {@code other}'s groups into this aggregator; {@code other} is left unchanged. */
  public void mergeFrom(HashAggregator other) {
    long[] tuple = new long[table.keyWidth()];
    for (int og = 0; og < other.table.groups(); og++) {
      for (int c = 0; c < tuple.length; c++) {
        tuple[c] = other.table.key(og, c);
      }
      int g = table.findOrInsert(tuple);
      prepareNewGroups();
      rows.set(g, rows.get(g) + other.rows.get(og));
      for (int i = 0; i < accumulators.length; i++) {
        accumulators[i].merge(g, other.accumulators[i], og);
      }
    }
  }

  /** The groups as a table: key columns, then aggregate columns, in group creation order. */
  public Table toTable() {
    boolean global = keys.isEmpty();
    if (global && table.groups() == 0) {
      table.findOrInsert(new long[table.keyWidth()]);
      prepareNewGroups();
    }
    List<String> names = new ArrayList<>();
    List<ColumnType> types = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      names.add(keys.get(i).name());
      types.add(keyTypes.get(i));
    }
    for (Accumulator accumulator : accumulators) {
      names.add(accumulator.aggregate.name());
      types.add(accumulator.resultType);
    }
    try (TableBuilder builder = new TableBuilder(names, types, memory.arrow())) {
      for (int g = 0; g < table.groups(); g++) {
        long nullMask = table.key(g, keys.size());
        for (int j = 0; j < keys.size(); j++) {
          long value = table.key(g, j);
          if ((nullMask & (1L << j)) != 0) {
            builder.appendNull();
          } else if (keyTypes.get(j).kind() == ColumnType.Kind.STRING) {
            builder.appendString(strings.value((int) value));
          } else {
            builder.appendLong(value);
          }
        }
        for (Accumulator accumulator : accumulators) {
          accumulator.appendResult(builder, g, rows.get(g));
        }
        builder.endRow();
      }
      return builder.build();
    }
  }

  @Override
  public void close() {
    table.close();
    groupColumns.close();
  }

  private static Expr.ColumnRef requireColumn(Expr expr) {
    if (expr instanceof Expr.ColumnRef ref) {
      return ref;
    }
    throw new IllegalArgumentException("string grouping keys must be columns, not " + expr);
  }

  /** Produces one key component per row. */
  private sealed interface KeySource permits LongKey, StringKey {
    void fill(Chunk chunk, int[] positions, int n, long[] out, long[] nullMask, long nullBit);
  }

  private record LongKey(LongKernel kernel) implements KeySource {
    @Override
    public void fill(Chunk chunk, int[] positions, int n, long[] out, long[] nullMask, long nullBit) {
      long[] values = kernel.evaluate(chunk);
      boolean anyNull = kernel.anyNull();
      boolean[] nulls = kernel.nulls();
      for (int i = 0; i < n; i++) {
        int k = positions[i];
        boolean isNull = anyNull && nulls[k];
        out[k] = isNull ? 0 : values[k];
        nullMask[k] |= isNull ? nullBit : 0;
      }
    }
  }

  private static final class StringKey implements KeySource {
    private final int columnIndex;
    private final StringIds strings;
    private FieldVector lastDictionary;
    private int[] idByCode;

    StringKey(int columnIndex, StringIds strings) {
      this.columnIndex = columnIndex;
      this.strings = strings;
    }

    @Override
    public void fill(Chunk chunk, int[] positions, int n, long[] out, long[] nullMask, long nullBit) {
      Column column = chunk.batch().column(columnIndex);
      int start = chunk.start();
      if (column instanceof DictionaryColumn codes) {
        int[] ids = idsOf(codes.dictionary());
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          out[k] = ids[codes.code(start + k)];
        }
      } else {
        VarCharColumn values = (VarCharColumn) column;
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          int row = start + k;
          out[k] = strings.id(values.bytes(), values.offset(row), values.byteLength(row));
        }
      }
      if (column.hasNulls()) {
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          if (column.isNull(start + k)) {
            out[k] = 0;
            nullMask[k] |= nullBit;
          }
        }
      }
    }

    int[] idsOf(VarCharColumn dictionary) {
      if (dictionary.arrow() != lastDictionary) {
        int[] ids = new int[dictionary.length()];
        for (int code = 0; code < ids.length; code++) {
          ids[code] = strings.id(dictionary.bytes(), dictionary.offset(code), dictionary.byteLength(code));
        }
        idByCode = ids;
        lastDictionary = dictionary.arrow();
      }
      return idByCode;
    }
  }

  /** One aggregate's accumulators, a column indexed by group id. */
  private static final class Accumulator {
    final Aggregate aggregate;
    final ColumnType resultType;
    private final LongKernel longs;
    private final DoubleKernel doubles;
    private final double unit;
    private final GroupColumns.Column values;
    private final GroupColumns.Column nullRows;

    Accumulator(Aggregate aggregate, Binder binder, GroupColumns columns) {
      this.aggregate = aggregate;
      Expr argument = aggregate.argument();
      ColumnType argumentType = argument == null ? null : binder.typeOf(argument);
      if (argumentType != null && argumentType.kind() == ColumnType.Kind.STRING
          && aggregate.function() != Aggregate.Function.COUNT) {
        throw new IllegalArgumentException(aggregate.function() + " of a string is not supported: " + argument);
      }
      if (aggregate.function() == Aggregate.Function.SUM && argumentType.kind() == ColumnType.Kind.DATE) {
        throw new IllegalArgumentException("cannot SUM dates: " + argument);
      }
      boolean integral = argumentType != null && argumentType.isIntegral();
      this.longs = integral ? binder.bindLong(argument) : null;
      this.doubles = argumentType != null && argumentType.kind() == ColumnType.Kind.FLOAT64
          ? binder.bindDouble(argument) : null;
      this.unit = integral ? Math.pow(10, -argumentType.scale()) : 1;
      this.resultType = switch (aggregate.function()) {
        case COUNT -> ColumnType.INT64;
        case AVG -> ColumnType.FLOAT64;
        case SUM -> argumentType.kind() == ColumnType.Kind.INT32 ? ColumnType.INT64 : argumentType;
        case MIN, MAX -> argumentType;
      };
      this.values = columns.claim();
      this.nullRows = columns.claim();
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

    void update(Chunk chunk, int[] positions, int n, int[] groupIds) {
      if (aggregate.argument() == null || sumSource != this) {
        return; // COUNT(*) reads the shared row counts
      }
      MemorySegment acc = values.segment();
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
                int g = groupIds[k];
                acc.setAtIndex(DOUBLE, g, acc.getAtIndex(DOUBLE, g) + v[k]);
              }
            }
          }
          case MIN, MAX -> {
            boolean min = aggregate.function() == Aggregate.Function.MIN;
            for (int i = 0; i < n; i++) {
              int k = positions[i];
              if (!(anyNull && nulls[k])) {
                int g = groupIds[k];
                double current = acc.getAtIndex(DOUBLE, g);
                acc.setAtIndex(DOUBLE, g, min ? Math.min(current, v[k]) : Math.max(current, v[k]));
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
            // Sums without nulls in the chunk took the row-wise path (plainSumValues).
            for (int i = 0; i < n; i++) {
              int k = positions[i];
              if (!(anyNull && nulls[k])) {
                int g = groupIds[k];
                acc.setAtIndex(LONG, g, Math.addExact(acc.getAtIndex(LONG, g), v[k]));
              }
            }
          }
          case MIN, MAX -> {
            boolean min = aggregate.function() == Aggregate.Function.MIN;
            for (int i = 0; i < n; i++) {
              int k = positions[i];
              if (!(anyNull && nulls[k])) {
                int g = groupIds[k];
                long current = acc.getAtIndex(LONG, g);
                acc.setAtIndex(LONG, g, min ? Math.min(current, v[k]) : Math.max(current, v[k]));
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
        MemorySegment nullCounts = nullRows.segment();
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          if (nulls[k]) {
            int g = groupIds[k];
            nullCounts.setAtIndex(LONG, g, nullCounts.getAtIndex(LONG, g) + 1);
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

    void merge(int g, Accumulator other, int og) {
      if (sumSource != this) {
        return;
      }
      // MIN/MAX start from their identity (±infinity), SUM from 0, so groups without values merge as no-ops.
      nullRows.set(g, nullRows.get(g) + other.nullRows.get(og));
      switch (aggregate.function()) {
        case SUM, AVG -> {
          if (isDouble()) {
            values.setDouble(g, values.getDouble(g) + other.values.getDouble(og));
          } else {
            values.set(g, Math.addExact(values.get(g), other.values.get(og)));
          }
        }
        case MIN -> {
          if (isDouble()) {
            values.setDouble(g, Math.min(values.getDouble(g), other.values.getDouble(og)));
          } else {
            values.set(g, Math.min(values.get(g), other.values.get(og)));
          }
        }
        case MAX -> {
          if (isDouble()) {
            values.setDouble(g, Math.max(values.getDouble(g), other.values.getDouble(og)));
          } else {
            values.set(g, Math.max(values.get(g), other.values.get(og)));
          }
        }
        case COUNT -> { }
      }
    }

    void appendResult(TableBuilder builder, int g, long groupRows) {
      GroupColumns.Column values = sumSource.values;
      long nonNull = groupRows - sumSource.nullRows.get(g);
      switch (aggregate.function()) {
        case COUNT -> builder.appendLong(nonNull);
        case AVG -> {
          if (nonNull == 0) {
            builder.appendNull();
          } else {
            double sum = isDouble() ? values.getDouble(g) : values.get(g) * unit;
            builder.appendDouble(sum / nonNull);
          }
        }
        default -> {
          if (nonNull == 0) {
            builder.appendNull();
          } else if (isDouble()) {
            builder.appendDouble(values.getDouble(g));
          } else {
            builder.appendLong(values.get(g));
          }
        }
      }
    }
  }
}
