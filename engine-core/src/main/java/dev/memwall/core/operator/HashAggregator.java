package dev.memwall.core.operator;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryEncoder;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Grouped aggregation, one chunk at a time: a {@link GroupTable} maps each row's key tuple to a
 * group id (or, for small dictionary-encoded key domains, {@link DictionaryGroups} maps the codes
 * directly), then each aggregate updates its accumulators by group id in a tight loop, all in one
 * {@link GroupColumns} buffer laid out as the {@link AggregateLayout} says (DSM or NSM); sums over
 * few groups go through {@link LaneSums}. Without keys there is a single group and the result has exactly one row, as
 * in SQL.
 *
 * <p>Keys are integral expressions (grouped by value, with decimals at their own scale) or string
 * columns (grouped by interned id). Null keys form one group, as in SQL. Parallel workers each
 * aggregate their share and are {@linkplain #mergeFrom merged} at the end. In the result a string
 * key column is dictionary-encoded (codes into the distinct strings of that column) when the
 * interned strings are few against the groups ({@link TableBuilder#keepsEncoded}), so the next
 * grouping, filter or sort over it works by code; otherwise it is plain strings.
 *
 * <p>Ownership: accumulators and the table are off-heap in the given {@link EngineMemory}; close
 * the aggregator. Thread safety: none; one per worker, bound with that worker's {@link Binder}.
 */
public final class HashAggregator implements AutoCloseable {

  private final EngineMemory memory;
  private final List<NamedExpr> keys;
  private final List<ColumnType> keyTypes = new ArrayList<>();
  private final GroupKey[] groupKeys;
  private final Accumulator[] accumulators;
  private final GroupTable table;
  private final StringIds strings;
  private final GroupColumns groupColumns;
  private final GroupColumns.Column rows;
  private final long[][] keyColumns;
  private final int[] positions = new int[Chunk.CAPACITY];
  private final int[] groupIds = new int[Chunk.CAPACITY];
  private final DictionaryGroups dictionaryGroups;
  private final LaneSums laneSums = new LaneSums();
  private final long[][] sumValues;
  private final GroupColumns.Column[] sumTargets;
  private int initializedGroups;

  /**
   * @param strings shared by all workers of this aggregation, so string keys intern alike
   * @param layout how the per-group state is laid out (the DSM versus NSM choice)
   * @throws IllegalArgumentException for keys or arguments of unsupported types (FLOAT64 keys,
   *     SUM of dates or strings, MIN/MAX of strings)
   */
  public HashAggregator(EngineMemory memory, Binder binder, List<NamedExpr> keys, List<Aggregate> aggregates,
      StringIds strings, AggregateLayout layout) {
    this.memory = memory;
    this.keys = List.copyOf(keys);
    this.strings = strings;
    if (keys.size() > 63) {
      throw new IllegalArgumentException("at most 63 grouping keys, got " + keys.size());
    }
    this.groupKeys = new GroupKey[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      Expr expr = keys.get(i).expr();
      ColumnType type = binder.typeOf(expr);
      keyTypes.add(type);
      groupKeys[i] = switch (type.kind()) {
        case STRING -> new GroupKey.Strings(binder.columnIndex(requireColumn(expr)), this.strings);
        case FLOAT64 -> throw new IllegalArgumentException("cannot group by the double " + expr);
        default -> new GroupKey.Integral(binder.bindLong(expr));
      };
    }
    this.keyColumns = new long[keys.size() + 1][Chunk.CAPACITY];
    this.table = new GroupTable(memory, keys.size() + 1);
    this.dictionaryGroups = new DictionaryGroups(groupKeys, table);
    this.sumValues = new long[aggregates.size() + 1][];
    this.sumTargets = new GroupColumns.Column[aggregates.size() + 1];
    this.accumulators = new Accumulator[aggregates.size()];
    for (int i = 0; i < aggregates.size(); i++) {
      accumulators[i] = new Accumulator(aggregates.get(i), binder);
      for (int j = 0; j < i; j++) {
        if (accumulators[i].canShare(accumulators[j])) {
          accumulators[i].shareSumsOf(accumulators[j]);
          break;
        }
      }
    }
    int owners = (int) Arrays.stream(accumulators).filter(Accumulator::ownsState).count();
    this.groupColumns = new GroupColumns(memory, 1 + 2 * owners, 64, layout);
    this.rows = groupColumns.claim();
    for (Accumulator accumulator : accumulators) {
      accumulator.claimValues(groupColumns);
    }
    for (Accumulator accumulator : accumulators) {
      accumulator.claimNullCounts(groupColumns);
    }
  }

  /** Adds the selected rows of {@code chunk}. */
  public void consume(Chunk chunk) {
    int n = chunk.copySelection(positions);
    if (n == 0) {
      return;
    }
    if (groupKeys.length == 0) {
      ensureGlobalGroup();
      rows.set(0, rows.get(0) + n);
      for (Accumulator accumulator : accumulators) {
        accumulator.updateSingleGroup(chunk, positions, n);
      }
      return;
    }
    if (!dictionaryGroups.assign(chunk, positions, n, groupIds)) {
      long[] nullMask = keyColumns[groupKeys.length];
      for (int i = 0; i < n; i++) {
        nullMask[positions[i]] = 0;
      }
      for (int j = 0; j < groupKeys.length; j++) {
        groupKeys[j].fill(chunk, positions, n, keyColumns[j], nullMask, 1L << j);
      }
      table.findOrInsert(keyColumns, positions, n, groupIds);
    }
    prepareNewGroups();
    int sums = 0;
    for (Accumulator accumulator : accumulators) {
      long[] values = accumulator.plainSumValues(chunk);
      if (values != null) {
        sumValues[sums] = values;
        sumTargets[sums++] = accumulator.values;
      } else {
        accumulator.update(chunk, positions, n, groupIds);
      }
    }
    sumValues[sums] = LaneSums.ONES;
    sumTargets[sums++] = rows;
    laneSums.add(sumValues, sumTargets, sums, positions, n, groupIds, table.groups());
  }

  /**
   * {@link #mergeFrom} for two aggregators whose groups are both in increasing order of their single
   * key: one pass over both lists, as a merge join, folds the groups with equal keys and appends
   * the others, with no lookup at all.
   */
  private void mergeOrdered(HashAggregator other) {
    int own = table.groups();
    int theirs = other.table.groups();
    long[] tuple = new long[table.keyWidth()];
    for (int g = 0, og = 0; og < theirs; og++) {
      long key = other.table.key(og, 0);
      while (g < own && table.key(g, 0) < key) {
        g++;
      }
      int target;
      if (g < own && table.key(g, 0) == key) {
        target = g;
      } else {
        tuple[0] = key;
        target = table.append(tuple);
        prepareNewGroups();
      }
      fold(target, other, og);
    }
  }

  /** Adds {@code other}'s group {@code og} (its row count and accumulators) into group {@code target}. */
  private void fold(int target, HashAggregator other, int og) {
    rows.set(target, rows.get(target) + other.rows.get(og));
    for (int a = 0; a < accumulators.length; a++) {
      accumulators[a].merge(target, other.accumulators[a], og);
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

  /** Creates group 0, the only group of an aggregation without keys, if it does not exist yet. */
  private void ensureGlobalGroup() {
    if (table.groups() == 0) {
      table.findOrInsert(new long[table.keyWidth()]);
      prepareNewGroups();
    }
  }

  /**
   * Folds {@code other}'s groups into this aggregator; {@code other} is left unchanged. The groups'
   * keys are looked up a chunk at a time, as input rows are, so the lookups' cache misses overlap.
   */
  public void mergeFrom(HashAggregator other) {
    if (table.ordered() && other.table.ordered()) {
      mergeOrdered(other);
      return;
    }
    int groups = other.table.groups();
    for (int first = 0; first < groups; first += Chunk.CAPACITY) {
      int n = Math.min(Chunk.CAPACITY, groups - first);
      for (int i = 0; i < n; i++) {
        positions[i] = i;
        for (int c = 0; c < keyColumns.length; c++) {
          keyColumns[c][i] = other.table.key(first + i, c);
        }
      }
      table.findOrInsert(keyColumns, positions, n, groupIds);
      prepareNewGroups();
      for (int i = 0; i < n; i++) {
        fold(groupIds[i], other, first + i);
      }
    }
  }

  /**
   * The groups as a table: key columns, then aggregate columns, in group creation order; string
   * keys encoded as the class comment says.
   */
  public Table toTable() {
    if (keys.isEmpty()) {
      ensureGlobalGroup(); // SQL: an aggregation without keys returns one row, even over no rows
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
    int groups = table.groups();
    boolean[] encoded = new boolean[names.size()];
    int[][] codeOfId = new int[keys.size()][];
    for (int j = 0; j < keys.size(); j++) {
      // every string this column can hold is interned; when even all of them are few against the
      // groups, the column is kept encoded (and otherwise written decoded at once)
      encoded[j] = groupKeys[j] instanceof GroupKey.Strings && TableBuilder.keepsEncoded(strings.size(), groups);
      if (encoded[j]) {
        codeOfId[j] = new int[strings.size()];
        Arrays.fill(codeOfId[j], -1);
      }
    }
    try (TableBuilder builder = new TableBuilder(names, types, encoded, memory.arrow())) {
      for (int first = 0; first < groups; ) {
        int count = builder.reserveRows(groups - first);
        int at = builder.nextRow();
        for (int j = 0; j < keys.size(); j++) {
          if (encoded[j]) {
            writeCodes((IntVector) builder.vector(j), builder.encoder(j), codeOfId[j], j, first, count, at);
          } else {
            writeKeys(builder.vector(j), j, first, count, at);
          }
        }
        for (int i = 0; i < accumulators.length; i++) {
          accumulators[i].writeResults(builder.vector(keys.size() + i), rows, first, count, at);
        }
        builder.commitRows(count);
        first += count;
      }
      return builder.build();
    }
  }

  /**
   * Writes string key {@code j} of groups {@code [first, first + count)} to rows
   * {@code [at, at + count)} of {@code target} as codes of {@code encoder}: each interned id gets the
   * next code when first met ({@code codeOfId}, -1 for none yet), so the column's dictionary holds
   * the strings of this column only, once each.
   */
  private void writeCodes(IntVector target, DictionaryEncoder encoder, int[] codeOfId, int j, int first, int count,
      int at) {
    int nullComponent = keys.size();
    long nullBit = 1L << j;
    for (int i = 0; i < count; i++) {
      int g = first + i;
      if ((table.key(g, nullComponent) & nullBit) != 0) {
        target.setNull(at + i);
        continue;
      }
      int id = (int) table.key(g, j);
      int code = codeOfId[id];
      if (code < 0) {
        code = codeOfId[id] = encoder.code(strings.value(id));
      }
      TableBuilder.setInt32(target, at + i, code);
    }
  }

  /** Writes key {@code j} of groups {@code [first, first + count)} to rows {@code [at, at + count)} of {@code target}. */
  private void writeKeys(FieldVector target, int j, int first, int count, int at) {
    int nullComponent = keys.size();
    long nullBit = 1L << j;
    for (int i = 0; i < count; i++) {
      int g = first + i;
      if ((table.key(g, nullComponent) & nullBit) != 0) {
        switch (target) {
          case VarCharVector strings -> strings.setNull(at + i);
          default -> ((BaseFixedWidthVector) target).setNull(at + i);
        }
        continue;
      }
      long value = table.key(g, j);
      switch (target) {
        case VarCharVector strings -> strings.setSafe(at + i, this.strings.value((int) value));
        case BigIntVector longs -> longs.set(at + i, value);
        default -> TableBuilder.setInt32((BaseFixedWidthVector) target, at + i, Math.toIntExact(value));
      }
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

}
