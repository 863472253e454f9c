package dev.memwall.core.operator;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.concurrent.Workers;
import dev.memwall.core.memory.ArrowSegments;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryEncoder;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Grouped aggregation, one chunk at a time: a {@link GroupTable} maps each row's key tuple to a
 * group id (or, for small dictionary-encoded key domains, {@link DictionaryGroups} maps the codes
 * directly), then each aggregate updates its accumulators by group id in a tight loop, all in one
 * {@link GroupColumns} buffer laid out as the {@link AggregateLayout} says (DSM or NSM); sums over
 * few groups go through {@link LaneSums}. Without keys there is a single group and the result has exactly one row, as
 * in SQL.
 *
 * <p>Keys are integral expressions (grouped by value, with decimals at their own scale), FLOAT64
 * expressions (grouped by value with -0.0 as 0.0 and all NaNs as one, {@link GroupKey.Doubles}) or
 * string columns (grouped by interned id). Null keys form one group, as in SQL. Parallel workers each
 * aggregate their share and are {@linkplain #merge merged} at the end. In the result a string
 * key column is dictionary-encoded (codes into the distinct strings of that column) when the
 * interned strings are few against the groups ({@link TableBuilder#keepsEncoded}), so the next
 * grouping, filter or sort over it works by code; otherwise it is plain strings.
 *
 * <p>Ownership: accumulators and the table are off-heap in the given {@link EngineMemory}; close
 * the aggregator. Thread safety: none; one per worker, bound with that worker's {@link Binder}.
 */
public final class HashAggregator implements AutoCloseable {
  private static final ValueLayout.OfLong UNALIGNED_LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  /** Groups below which a range of a merged result is not worth a thread of its own (one full batch). */
  static final int MIN_GROUPS_PER_RANGE = TableBuilder.BATCH_ROWS;

  private final EngineMemory memory;
  /** Where result tables are allocated: {@link #memory} unless the working state lives apart. */
  private final EngineMemory output;
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
   * Checks the keys and aggregates against the input {@code binder} binds, binds them, and only
   * then allocates the group table and the accumulators' columns; if anything fails, what was
   * allocated is freed before the exception leaves.
   *
   * @param strings shared by all workers of this aggregation, so string keys intern alike
   * @param layout how the per-group state is laid out (the DSM versus NSM choice)
   * @throws IllegalArgumentException as {@link #resultTypes} does, before anything is allocated
   * @throws dev.memwall.core.memory.BudgetExceededException when the memory's budget cannot cover
   *     the initial state (nothing stays allocated)
   */
  public HashAggregator(EngineMemory memory, Binder binder, List<NamedExpr> keys, List<Aggregate> aggregates,
      StringIds strings, AggregateLayout layout) {
    this(memory, memory, binder, keys, aggregates, strings, layout);
  }

  /**
   * As {@link #HashAggregator(EngineMemory, Binder, List, List, StringIds, AggregateLayout)}, with the
   * group table and accumulators in {@code working} and result tables allocated from {@code output}.
   */
  public HashAggregator(EngineMemory working, EngineMemory output, Binder binder, List<NamedExpr> keys,
      List<Aggregate> aggregates, StringIds strings, AggregateLayout layout) {
    EngineMemory memory = working;
    this.memory = working;
    this.output = output;
    this.keys = List.copyOf(keys);
    this.strings = strings;
    keyTypes.addAll(resultTypes(binder, keys, aggregates).subList(0, keys.size()));
    this.groupKeys = new GroupKey[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      Expr expr = keys.get(i).expr();
      groupKeys[i] = switch (keyTypes.get(i).kind()) {
        case STRING -> new GroupKey.Strings(binder.columnIndex((Expr.ColumnRef) expr), this.strings);
        case FLOAT64 -> new GroupKey.Doubles(binder.bindDouble(expr));
        default -> new GroupKey.Integral(binder.bindLong(expr));
      };
    }
    this.keyColumns = new long[keys.size() + 1][Chunk.CAPACITY];
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
    GroupTable groups = null;
    GroupColumns columns = null;
    try {
      groups = new GroupTable(memory, keys.size() + 1);
      columns = new GroupColumns(memory, 1 + 2 * owners, 64, layout);
      this.rows = columns.claim();
      for (Accumulator accumulator : accumulators) {
        accumulator.claimValues(columns);
      }
      for (Accumulator accumulator : accumulators) {
        accumulator.claimNullCounts(columns);
      }
    } catch (RuntimeException | Error e) {
      if (columns != null) {
        columns.close();
      }
      if (groups != null) {
        groups.close();
      }
      throw e;
    }
    this.table = groups;
    this.groupColumns = columns;
    this.dictionaryGroups = new DictionaryGroups(groupKeys, table);
  }

  /**
   * The types of the result's columns, the keys' then the aggregates', for grouping the input
   * {@code binder} binds by {@code keys}; allocates nothing, so plans are checked with it before
   * they run.
   *
   * @throws IllegalArgumentException in one line naming the key or aggregate (with its argument and
   *     that argument's type) this aggregator cannot compute: more than 63 keys, string keys other
   *     than columns, and the aggregates {@link Aggregate#resultType} refuses
   */
  public static List<ColumnType> resultTypes(Binder binder, List<NamedExpr> keys, List<Aggregate> aggregates) {
    if (keys.size() > 63) {
      throw new IllegalArgumentException("at most 63 grouping keys, got " + keys.size());
    }
    List<ColumnType> types = new ArrayList<>();
    for (NamedExpr key : keys) {
      Expr expr = key.expr();
      ColumnType type = binder.typeOf(expr);
      String name = expr instanceof Expr.ColumnRef ref
          ? (ref.name().equals(key.name()) ? ref.name() : ref.name() + " AS " + key.name())
          : expr + " AS " + key.name();
      if (type.kind() == ColumnType.Kind.STRING && !(expr instanceof Expr.ColumnRef)) {
        throw new IllegalArgumentException("cannot group by " + name + ": string grouping keys must be columns");
      }
      types.add(type);
    }
    for (Aggregate aggregate : aggregates) {
      types.add(aggregate.resultType(aggregate.argument() == null ? null : binder.typeOf(aggregate.argument())));
    }
    return types;
  }

  /** Adds the selected rows of {@code chunk}. */
  public void consume(Chunk chunk) {
    consume(chunk, false);
  }

  /**
   * Adds the selected rows of {@code chunk}, unless this table is {@linkplain #ordered() ordered},
   * holds groups, and the chunk's first key is below its last group's (a null one included): the
   * chunk would break the order, so nothing is added and false is returned, for the caller to start
   * another ordered table rather than have this one hashed (see {@link SpillingAggregation}).
   */
  boolean consumeInOrder(Chunk chunk) {
    return consume(chunk, true);
  }

  private boolean consume(Chunk chunk, boolean inOrderOnly) {
    int n = chunk.copySelection(positions);
    if (n == 0) {
      return true;
    }
    if (groupKeys.length == 0) {
      ensureGlobalGroup();
      rows.set(0, rows.get(0) + n);
      for (Accumulator accumulator : accumulators) {
        accumulator.updateSingleGroup(chunk, positions, n);
      }
      return true;
    }
    if (!dictionaryGroups.assign(chunk, positions, n, groupIds)) {
      long[] nullMask = keyColumns[groupKeys.length];
      for (int i = 0; i < n; i++) {
        nullMask[positions[i]] = 0;
      }
      for (int j = 0; j < groupKeys.length; j++) {
        groupKeys[j].fill(chunk, positions, n, keyColumns[j], nullMask, 1L << j);
      }
      if (inOrderOnly && ordered() && table.groups() > 0
          && table.breaksOrder(keyColumns[0][positions[0]], nullMask[positions[0]])) {
        return false;
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
    laneSums.add(sumValues, sumTargets, sums, positions, n, chunk.count(), groupIds, table.groups());
    return true;
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
  private void mergeFrom(HashAggregator other) {
    int groups = other.table.groups();
    for (int first = 0; first < groups; first += Chunk.CAPACITY) {
      ExecutionControl.checkpoint();
      mergeGroups(other, first, Math.min(Chunk.CAPACITY, groups - first));
    }
  }

  /**
   * Folds groups {@code [first, first + n)} of {@code other} (same keys, aggregates and
   * {@link StringIds}; {@code n} at most {@link Chunk#CAPACITY}) into this aggregator. After
   * {@link #reserveRoom reserveRoom(n)} it allocates nothing, or (a refused allocation) throws with
   * this aggregator unchanged.
   */
  void mergeGroups(HashAggregator other, int first, int n) {
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

  /**
   * Makes room for {@code n} more groups (at most {@link Chunk#CAPACITY}): afterwards
   * {@link #consume} of a chunk, {@link #mergeGroups} or {@link #mergeRecords} of at most {@code n}
   * allocates nothing, or throws the budget's refusal with this aggregator unchanged (a single-key
   * table still in key order that must build its slots). That is what lets a refused growth spill
   * instead of failing.
   *
   * @throws dev.memwall.core.memory.BudgetExceededException if the room is refused; this aggregator
   *     is unchanged and can still be spilled or written
   */
  public void reserveRoom(int n) {
    table.reserve(n);
    groupColumns.ensureCapacity((long) table.groups() + n);
  }

  /**
   * Drops every group, keeping the table's and the accumulators' memory at its grown size: after a
   * spill, the next groups fill the same memory instead of growing into it again.
   */
  public void clear() {
    table.clear();
    groupColumns.clear();
    dictionaryGroups.clear();
    initializedGroups = 0;
  }

  /** Off-heap bytes of the group table and the accumulators' columns (the working state). */
  public long footprintBytes() {
    return table.footprintBytes() + groupColumns.footprintBytes();
  }

  /** The groups so far. */
  public int groups() {
    return table.groups();
  }

  /**
   * Whether every group so far came in strictly increasing order of a single integral key, so that
   * the table has no slots and partials merge as in {@link #merge}'s ordered case.
   */
  boolean ordered() {
    return groupKeys.length == 1 && groupKeys[0] instanceof GroupKey.Integral && table.ordered();
  }

  /** The bytes of one group as a spilled record: its key tuple, its row count, then each owned accumulator's value and null count. */
  public int recordBytes() {
    int owners = (int) Arrays.stream(accumulators).filter(Accumulator::ownsState).count();
    return Long.BYTES * (table.keyWidth() + 1 + 2 * owners);
  }

  /** The hash of group {@code group}'s key tuple (equal keys, equal hashes, in every aggregator of this shape). */
  public long hashOf(int group) {
    return table.hashOf(group);
  }

  /** Writes group {@code group} as a record of {@link #recordBytes()} bytes at {@code offset} of {@code out}. */
  public void writeRecord(int group, MemorySegment out, long offset) {
    long at = offset;
    int width = table.keyWidth();
    for (int c = 0; c < width; c++, at += Long.BYTES) {
      out.set(UNALIGNED_LONG, at, table.key(group, c));
    }
    out.set(UNALIGNED_LONG, at, rows.get(group));
    at += Long.BYTES;
    for (Accumulator accumulator : accumulators) {
      if (accumulator.ownsState()) {
        out.set(UNALIGNED_LONG, at, accumulator.stateValue(group));
        out.set(UNALIGNED_LONG, at + Long.BYTES, accumulator.stateNulls(group));
        at += 2 * Long.BYTES;
      }
    }
  }

  /**
   * Folds {@code n} records (at most {@link Chunk#CAPACITY}) written by {@link #writeRecord} of an
   * aggregator of this shape, back to back from {@code offset} of {@code records}, into this one; as
   * {@link #mergeGroups}, allocation-free after {@link #reserveRoom reserveRoom(n)}.
   */
  public void mergeRecords(MemorySegment records, long offset, int n) {
    int width = table.keyWidth();
    long bytes = recordBytes();
    for (int i = 0; i < n; i++) {
      positions[i] = i;
      long at = offset + i * bytes;
      for (int c = 0; c < width; c++) {
        keyColumns[c][i] = records.get(UNALIGNED_LONG, at + (long) c * Long.BYTES);
      }
    }
    table.findOrInsert(keyColumns, positions, n, groupIds);
    prepareNewGroups();
    for (int i = 0; i < n; i++) {
      int g = groupIds[i];
      long at = offset + i * bytes + (long) width * Long.BYTES;
      rows.set(g, rows.get(g) + records.get(UNALIGNED_LONG, at));
      at += Long.BYTES;
      for (Accumulator accumulator : accumulators) {
        if (accumulator.ownsState()) {
          accumulator.mergeState(g, records.get(UNALIGNED_LONG, at), records.get(UNALIGNED_LONG, at + Long.BYTES));
          at += 2 * Long.BYTES;
        }
      }
    }
  }

  /**
   * Whether {@link #merge} of {@code partials} folds them without growing any table: no keys (one
   * group), one partial, or the ordered merge (see {@link #merge}).
   */
  public static boolean mergesInPlace(List<HashAggregator> partials) {
    HashAggregator first = partials.getFirst();
    return first.keys.isEmpty() || partials.size() == 1 || ordered(partials);
  }

  private static boolean ordered(List<HashAggregator> partials) {
    HashAggregator first = partials.getFirst();
    return partials.size() > 1 && first.groupKeys.length == 1
        && first.groupKeys[0] instanceof GroupKey.Integral && partials.stream().allMatch(p -> p.table.ordered());
  }

  /**
   * A table being written from the groups of aggregators of this one's shape, one after another, as
   * a spilled aggregation's partitions finish; allocated from the output memory.
   *
   * @param groups an estimate of the result's groups (an upper bound is fine), which decides whether
   *     string keys stay dictionary-encoded
   */
  public ResultWriter resultWriter(long groups) {
    return new ResultWriter(new Output((int) Math.min(Integer.MAX_VALUE, Math.max(0, groups))));
  }

  /** See {@link #resultWriter}. Ownership: closing frees what {@link #build} has not handed over. Thread safety: none. */
  public static final class ResultWriter implements AutoCloseable {
    private final Output output;

    private ResultWriter(Output output) {
      this.output = output;
    }

    /** Appends every group of {@code source}. */
    public void write(HashAggregator source) {
      if (source.keys.isEmpty()) {
        source.ensureGlobalGroup();
      }
      output.write(source, 0, source.table.groups());
    }

    /** How many groups have been written. */
    public long groups() {
      return output.builder.rowCount();
    }

    /** The table of every group written; the caller owns it. */
    public Table build() {
      return output.builder.build();
    }

    /**
     * One table of the groups of all {@code writers} (of one aggregation, made with the same group
     * estimate), in order; the caller owns it, and still closes the writers.
     */
    public static Table build(List<ResultWriter> writers) {
      return TableBuilder.concatenate(writers.stream().map(w -> w.output.builder).toList());
    }

    @Override
    public void close() {
      output.close();
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
    try (Output output = new Output(table.groups())) {
      output.write(this, 0, table.groups());
      return output.builder.build();
    }
  }

  /**
   * The result of one aggregation whose workers each aggregated a share of the input into one of
   * {@code partials} (same keys, aggregates and {@link StringIds}); the partials stay the caller's
   * to close and are changed. The result is written on up to {@code threads} threads, each range
   * of at least {@value #MIN_GROUPS_PER_RANGE} groups into its own part of the table.
   *
   * <p>When every partial holds its groups in strictly increasing order of one integral key
   * (ordered input such as lineitem by order key, each worker's morsels ascending), the groups are
   * neither looked up nor copied: the key domain is cut at keys of the largest partial, and each
   * range is merged as a merge join and written on its own thread. A key in several partials (a
   * run cut by a morsel boundary) is folded into the group of the first, and the others are not
   * written; runs of keys found in one partial only are skipped by galloping. Within a range the
   * groups come partial by partial. Otherwise the partials are folded into the first one by one, a
   * chunk of lookups at a time, and its groups are written in ranges.
   */
  public static Table merge(List<HashAggregator> partials, int threads) {
    HashAggregator first = partials.getFirst();
    boolean ordered = ordered(partials);
    if (first.keys.isEmpty() || !ordered) {
      for (HashAggregator partial : partials.subList(1, partials.size())) {
        first.mergeFrom(partial);
      }
      if (first.keys.isEmpty()) {
        return first.toTable();
      }
    }
    List<HashAggregator> sources = ordered ? partials : List.of(first);
    int groups = sources.stream().mapToInt(p -> p.table.groups()).sum();
    int ranges = Math.clamp(groups / MIN_GROUPS_PER_RANGE, 1, Math.max(1, threads));
    int[][] cuts = cuts(sources, ranges);
    Output[] outputs = new Output[ranges];
    List<Runnable> tasks = new ArrayList<>();
    for (int r = 0; r < ranges; r++) {
      int range = r;
      tasks.add(() -> {
        List<List<Integer>> folded = foldEqualKeys(sources, cuts, range);
        outputs[range] = first.new Output(groups);
        for (int p = 0; p < sources.size(); p++) {
          outputs[range].writeExcept(sources.get(p), cuts[p][range], cuts[p][range + 1], folded.get(p));
        }
      });
    }
    try {
      Workers.runAll("memwall-merge", tasks);
      return TableBuilder.concatenate(Arrays.stream(outputs).map(output -> output.builder).toList());
    } finally {
      for (Output output : outputs) {
        if (output != null) {
          output.close();
        }
      }
    }
  }

  /**
   * Where the {@code ranges} ranges of the merge start in each source: {@code cuts[p][r]} is the
   * first group of source {@code p} in range {@code r}, {@code cuts[p][ranges]} its group count.
   * One source is cut into equal shares of groups; several (ordered) at keys of the largest.
   */
  private static int[][] cuts(List<HashAggregator> sources, int ranges) {
    HashAggregator largest = sources.stream().max(Comparator.comparingInt(p -> p.table.groups())).orElseThrow();
    int[][] cuts = new int[sources.size()][ranges + 1];
    for (int p = 0; p < sources.size(); p++) {
      GroupTable table = sources.get(p).table;
      for (int r = 1; r < ranges; r++) {
        int share = (int) ((long) largest.table.groups() * r / ranges);
        cuts[p][r] = sources.size() == 1 ? share : table.firstGroupAtLeast(largest.table.key(share, 0), 0);
      }
      cuts[p][ranges] = table.groups();
    }
    return cuts;
  }

  /**
   * Walks range {@code range} of every ordered source at once, as a merge join, and folds each key
   * met in several sources into the group of the first; returns, per source, the groups so folded
   * away (ascending). Keys below every other source's next key are skipped by galloping, so the
   * walk costs the runs of the sources' interleaving, not their groups.
   */
  private static List<List<Integer>> foldEqualKeys(List<HashAggregator> sources, int[][] cuts, int range) {
    int w = sources.size();
    List<List<Integer>> folded = new ArrayList<>();
    int[] at = new int[w];
    for (int p = 0; p < w; p++) {
      folded.add(new ArrayList<>());
      at[p] = cuts[p][range];
    }
    if (w == 1) {
      return folded;
    }
    while (true) {
      int least = -1;
      long key = 0;
      for (int p = 0; p < w; p++) {
        if (at[p] < cuts[p][range + 1]) {
          long k = sources.get(p).table.key(at[p], 0);
          if (least < 0 || k < key) {
            least = p;
            key = k;
          }
        }
      }
      if (least < 0) {
        return folded;
      }
      HashAggregator target = sources.get(least);
      boolean others = false;
      long bound = Long.MAX_VALUE;
      for (int p = least + 1; p < w; p++) {
        HashAggregator other = sources.get(p);
        if (at[p] < cuts[p][range + 1] && other.table.key(at[p], 0) == key) {
          target.fold(at[least], other, at[p]);
          folded.get(p).add(at[p]++);
        }
      }
      for (int p = 0; p < w; p++) {
        if (p != least && at[p] < cuts[p][range + 1]) {
          long next = sources.get(p).table.key(at[p], 0);
          others = true;
          bound = Math.min(bound, next);
        }
      }
      at[least] = others ? target.table.firstGroupAtLeast(bound, at[least] + 1) : cuts[least][range + 1];
    }
  }

  /**
   * A result table being written from groups of this aggregation's partials: the builder, which
   * string key columns it keeps encoded, and for those the code of each interned id (-1: none yet),
   * so that a column's dictionary holds the strings of that column only, once each.
   */
  private final class Output implements AutoCloseable {
    final TableBuilder builder;
    private final boolean[] encoded;
    private final int[][] codeOfId;

    /** @param groups how many groups the whole result has, which decides the encodings */
    Output(int groups) {
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
      encoded = new boolean[names.size()];
      codeOfId = new int[keys.size()][];
      for (int j = 0; j < keys.size(); j++) {
        // every string this column can hold is interned; when even all of them are few against the
        // groups, the column is kept encoded (and otherwise written decoded at once)
        encoded[j] = groupKeys[j] instanceof GroupKey.Strings && TableBuilder.keepsEncoded(strings.size(), groups);
        if (encoded[j]) {
          codeOfId[j] = new int[strings.size()];
          Arrays.fill(codeOfId[j], -1);
        }
      }
      builder = new TableBuilder(names, types, encoded, output.arrow());
    }

    /** Appends groups {@code [from, to)} of {@code source}. */
    void write(HashAggregator source, int from, int to) {
      for (int first = from; first < to; ) {
        ExecutionControl.checkpoint();
        int count = builder.reserveRows(to - first);
        int at = builder.nextRow();
        for (int j = 0; j < keys.size(); j++) {
          if (encoded[j]) {
            source.writeCodes((IntVector) builder.vector(j), builder.encoder(j), codeOfId[j], j, first, count, at);
          } else {
            source.writeKeys(builder.vector(j), j, first, count, at);
          }
        }
        for (int i = 0; i < accumulators.length; i++) {
          source.accumulators[i].writeResults(builder.vector(keys.size() + i), source.rows, first, count, at);
        }
        builder.commitRows(count);
        first += count;
      }
    }

    /** Appends the groups of {@code [from, to)} of {@code source} but those listed in {@code skipped} (ascending). */
    void writeExcept(HashAggregator source, int from, int to, List<Integer> skipped) {
      int start = from;
      for (int group : skipped) {
        write(source, start, group);
        start = group + 1;
      }
      write(source, start, to);
    }

    @Override
    public void close() {
      builder.close();
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
    if (target instanceof VarCharVector strings) {
      for (int i = 0; i < count; i++) {
        int g = first + i;
        if ((table.key(g, nullComponent) & nullBit) != 0) {
          strings.setNull(at + i);
        } else {
          strings.setSafe(at + i, this.strings.value((int) table.key(g, j)));
        }
      }
      return;
    }
    BaseFixedWidthVector fixed = (BaseFixedWidthVector) target;
    TableBuilder.setNonNull(fixed, at, count);
    MemorySegment data = ArrowSegments.of(fixed.getDataBuffer());
    MemorySegment tuples = table.keys();
    long width = table.keyWidth();
    int valueBytes = TableBuilder.valueBytes(fixed);
    long tuple = first * width;
    for (int i = 0; i < count; i++, tuple += width) {
      long value = tuples.getAtIndex(ValueLayout.JAVA_LONG, tuple + j);
      if ((tuples.getAtIndex(ValueLayout.JAVA_LONG, tuple + nullComponent) & nullBit) != 0) {
        BitVectorHelper.unsetBit(fixed.getValidityBuffer(), at + i);
      } else {
        TableBuilder.setIntegral(data, valueBytes, at + i, value);
      }
    }
  }

  @Override
  public void close() {
    table.close();
    groupColumns.close();
  }

}
