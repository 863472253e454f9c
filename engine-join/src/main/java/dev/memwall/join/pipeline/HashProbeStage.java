package dev.memwall.join.pipeline;

import dev.memwall.core.bloom.RegisterBlockedBloomFilter;
import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.LongKernel;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.output.OutputColumn;
import dev.memwall.core.plan.ChunkStage;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.RowLocator;
import dev.memwall.core.vector.ScratchBatch;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.VarCharColumn;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinKeyException;
import dev.memwall.join.common.JoinMemoryException;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.algorithm.BuildTable;
import dev.memwall.join.algorithm.DenseKeyTable;
import dev.memwall.join.algorithm.OpenAddressingTable;
import dev.memwall.join.keys.KeyColumns;
import dev.memwall.join.keys.KeyShape;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A hash join whose probe side streams through a {@link dev.memwall.core.plan.Plan} pipeline: the
 * build side (a table) is put into a {@link BuildTable} once, and each chunk of the probe side is
 * joined as it flows from the scan and its filters to the next step, so the probe side is never
 * materialized (the push-based pipelining of vectorized engines). The build table is a {@link
 * DenseKeyTable} where the build keys are one integral column, unique and dense enough for it (a
 * primary key), else an {@link OpenAddressingTable}.
 *
 * <p>Per chunk: the key expressions are evaluated, rows with a null key set aside (they match
 * nothing), and the table is looked up in one plain loop: a dense key table for the keys
 * themselves ({@link DenseKeyTable#entriesOf}), the hash table for the hashes computed as {@link
 * KeyColumns} computes them for the build rows ({@link OpenAddressingTable#entriesOf}).
 * When probing shows most rows find no partner, a filter of the keys is tested first
 * ({@link KeyFilter}): an exact bitmap of a small integral key range, tested before hashing, or a
 * Bloom filter of the hashes. Then by join type:
 * <ul>
 *   <li>{@link JoinType#SEMI} and {@link JoinType#ANTI} narrow the chunk's selection to the rows with
 *       (without) a partner; the chunk goes on with its columns and names ({@link #narrowsOnly}).
 *   <li>An {@link JoinType#INNER} join that emits no build column, over a build side whose key hashes
 *       each have one row ({@link BuildTable#oneRowPerEntry}), gives every probe row at most
 *       one partner: it is a semi join, and narrows as one instead of copying its rows' columns into
 *       pairs. Its output is then the probe side's columns, whatever {@code probeOutputs} named; the
 *       caller projects them ({@link dev.memwall.join.relational.Relation} does).
 *   <li>{@link JoinType#INNER} and {@link JoinType#LEFT_OUTER} emit chunks of (probe row, build row)
 *       pairs over a per-thread {@link ScratchBatch}: the chosen probe columns (each evaluated and
 *       copied by its {@link OutputColumn}) then the chosen build columns (gathered). Strings are not copied: they are codes into the probe
 *       batch's or the build side's strings. A left outer row without a partner has null build columns.
 * </ul>
 *
 * <p>Ownership: the stage owns the hash table and the build side's concatenated strings until
 * {@link #close}; the build table stays its owner's and must outlive the stage. Each worker owns its
 * scratch batch. Thread safety: after construction the stage is read-only; workers are per thread.
 *
 * <p>Bad input: key columns of unsupported or different types throw {@link JoinKeyException}, an
 * output column missing or on both sides {@link IllegalArgumentException}, when the pipeline is
 * bound (before any probe row is read); a table the budget cannot hold {@link JoinMemoryException}
 * at construction.
 */
public final class HashProbeStage implements ChunkStage, AutoCloseable {
  private final JoinType type;
  private final List<String> probeKeys;
  private final List<String> probeOutputs;
  private final KeyColumns buildKeys;
  private final KeyShape shape;
  private final BuildTable table;
  private final RowLocator locator;
  private final List<BuildColumn> buildOutputs;
  private final KeyFilter filter;
  /** A marking stage's marks, one byte per build row, 1 once a probe row matched it; null for the others. */
  private final OffHeapBuffer marks;
  /** Whether the stage only narrows the selection: semi and anti joins, and inner joins that are semi joins. */
  private final boolean narrowing;

  private HashProbeStage(JoinType type, List<String> probeKeys, List<String> probeOutputs, KeyColumns buildKeys,
      BuildTable table, KeyFilter filter, RowLocator locator, List<BuildColumn> buildOutputs,
      OffHeapBuffer marks) {
    this.type = type;
    this.probeKeys = probeKeys;
    this.probeOutputs = probeOutputs;
    this.buildKeys = buildKeys;
    this.shape = buildKeys.shape();
    this.table = table;
    this.filter = filter;
    this.locator = locator;
    this.buildOutputs = buildOutputs;
    this.marks = marks;
    this.narrowing = type == JoinType.SEMI || type == JoinType.ANTI
        || (type == JoinType.INNER && buildOutputs.isEmpty() && table.oneRowPerEntry());
  }

  @Override
  public String describe() {
    String keys = String.join(", ", probeKeys) + " = build side's " + String.join(", ", buildKeys.names());
    String kind = marks != null ? "marking probe (the build side's rows matched by the probe side)"
        : "hash probe (" + type + " join" + (type == JoinType.INNER && narrowing ? " on unique keys, narrowing" : "") + ")";
    return kind + " on " + keys + "; build side " + buildKeys.rowCount() + " rows, " + table.describe()
        + (filter != null ? " behind a key filter" : "")
        + (buildOutputs.isEmpty() ? "" : ", emitting " + buildOutputs.stream().map(BuildColumn::name).toList());
  }

  /**
   * Builds the hash table on {@code build}'s {@code buildKeys} (on the context's threads) for a join of
   * {@code type} whose probe side has the keys {@code probeKeys} (paired by position) of
   * {@code probeKeyTypes}, which are checked first.
   *
   * @param probeOutputs the probe columns inner and left outer joins emit, in order; null: every
   *     column the probe side has at this point. An inner join that {@linkplain #narrowsOnly narrows
   *     only} (no build outputs, one build row per key hash) emits every column instead
   * @param buildOutputs the build columns inner and left outer joins emit after them (none for semi
   *     and anti joins)
   * @param cacheBytes the cache a lookup structure must fit to be fast (see
   *     {@link dev.memwall.core.machine.MachineProfile#fastCacheBytes()}): the most a key filter in
   *     front of the table may take ({@link KeyFilter})
   * @throws JoinKeyException naming a key that is missing or of an unsupported type, or a pair of keys
   *     of different types
   * @throws JoinMemoryException if the context's memory budget cannot hold the table
   * @throws IllegalArgumentException for a build output column that does not exist, or outputs of
   *     a semi or anti join
   */
  public static HashProbeStage build(Table build, List<String> buildKeys, JoinType type, List<String> probeKeys,
      List<ColumnType> probeKeyTypes, List<String> probeOutputs, List<String> buildOutputs, long cacheBytes,
      ExecutionContext context) {
    return build(build, buildKeys, type, probeKeys, probeKeyTypes, probeOutputs, buildOutputs, cacheBytes, context,
        false);
  }

  /**
   * A marking stage, for a semi or anti join whose preserved side is the build side (the smaller
   * one): the table is built on {@code build}, the other side's chunks probe it and pass nothing on,
   * and every build row a probe row matches is marked; {@link #markedRows} then keeps the build rows
   * with (semi) or without (anti) a mark, once the probe side has run. Parameters and failures as
   * {@link #build}.
   */
  public static HashProbeStage marking(Table build, List<String> buildKeys, List<String> probeKeys,
      List<ColumnType> probeKeyTypes, long cacheBytes, ExecutionContext context) {
    return build(build, buildKeys, JoinType.SEMI, probeKeys, probeKeyTypes, null, List.of(), cacheBytes, context, true);
  }

  private static HashProbeStage build(Table build, List<String> buildKeys, JoinType type, List<String> probeKeys,
      List<ColumnType> probeKeyTypes, List<String> probeOutputs, List<String> buildOutputs, long cacheBytes,
      ExecutionContext context, boolean marking) {
    EngineMemory memory = context.memory();
    if ((type == JoinType.SEMI || type == JoinType.ANTI) && !buildOutputs.isEmpty()) {
      throw new IllegalArgumentException(type + " joins emit only probe columns, not " + buildOutputs);
    }
    for (int k = 0; k < probeKeys.size(); k++) {
      KeyColumns.requireKeyType("left", probeKeys.get(k), probeKeyTypes.get(k));
    }
    KeyColumns keys = KeyColumns.of(build, buildKeys, "right");
    KeyColumns.requireSameTypes(probeKeys, probeKeyTypes, buildKeys, keys.types());
    List<BuildColumn> columns = new ArrayList<>();
    BuildTable table = null;
    OffHeapBuffer marks = null;
    try {
      for (String name : buildOutputs) {
        columns.add(BuildColumn.of(build, name, memory.arrow()));
      }
      table = buildTable(keys, context);
      marks = marking ? memory.allocate(Math.max(1, keys.rowCount())) : null;
      return new HashProbeStage(type, List.copyOf(probeKeys), probeOutputs == null ? null : List.copyOf(probeOutputs),
          keys, table, new KeyFilter(table, keys, cacheBytes, memory), RowLocator.of(build.batches()),
          List.copyOf(columns), marks);
    } catch (RuntimeException | Error e) {
      columns.forEach(BuildColumn::close);
      if (table != null) {
        table.close();
      }
      if (marks != null) {
        marks.close();
      }
      throw e;
    }
  }

  /**
   * A stage over the chunks of {@code build} (the table this marking stage was built on, scanned
   * after the probe side has run) that keeps the rows a probe row matched ({@code matched} true: a
   * semi join) or those none did (false: an anti join, which so keeps the rows with a null key).
   *
   * @throws IllegalStateException if this is not a marking stage
   */
  public ChunkStage markedRows(Table build, boolean matched) {
    if (marks == null) {
      throw new IllegalStateException("only a marking stage has marks");
    }
    Map<Batch, Integer> starts = new IdentityHashMap<>();
    for (int b = 0, start = 0; b < build.batches().size(); start += build.batches().get(b++).rowCount()) {
      starts.put(build.batches().get(b), start);
    }
    MemorySegment marked = marks.segment();
    byte wanted = (byte) (matched ? 1 : 0);
    return new ChunkStage.Narrowing() {
      @Override
      public Worker open(Input input, ExecutionContext context) {
        return new Worker() {
          @Override
          public void process(Chunk chunk, Consumer<Chunk> next) {
            Integer start = starts.get(chunk.batch());
            if (start == null) {
              throw new IllegalArgumentException("these marks are of another table's rows");
            }
            int first = start + chunk.start();
            int[] selection = chunk.selection();
            int kept = 0;
            for (int i = 0; i < chunk.selected(); i++) {
              int k = chunk.position(i);
              selection[kept] = k;
              kept += marked.get(ValueLayout.JAVA_BYTE, first + k) == wanted ? 1 : 0;
            }
            chunk.select(selection, kept);
            if (kept > 0) {
              next.accept(chunk);
            }
          }

          @Override
          public void close() {}
        };
      }
    };
  }

  /** Whether probing decided to test a filter before the table (see {@link KeyFilter}). */
  public boolean filtered() {
    return filter.kind() != KeyFilter.Kind.NONE;
  }

  /** The filter probing decided to test before the table (for tests). */
  KeyFilter.Kind filterKind() {
    return filter.kind();
  }

  /**
   * The dense key table where it applies and is no larger than the hash table (so it never takes
   * more memory than the hash table would), else the hash table.
   */
  private static BuildTable buildTable(KeyColumns keys, ExecutionContext context) {
    DenseKeyTable dense = DenseKeyTable.build(keys, context.memory());
    if (dense != null) {
      return dense;
    }
    try {
      return OpenAddressingTable.build(keys, context.memory(), context.threads());
    } catch (BudgetExceededException e) {
      long required = OpenAddressingTable.bytesFor(keys.rowCount());
      throw new JoinMemoryException(String.format(Locale.ROOT,
          "pipelined %s join building on %d rows needs about %d bytes for its hash table; %s",
          JoinAlgorithm.OPEN_ADDRESSING, keys.rowCount(), required, e.getMessage()), required, e);
    }
  }

  /** The bytes of the hash table for a build side of {@code rows} rows; a dense key table takes no more. */
  public static long bytesFor(long rows) {
    return OpenAddressingTable.bytesFor(rows);
  }

  public JoinType type() {
    return type;
  }

  /**
   * Whether the stage passes its input's chunks on with a narrower selection: a semi or anti join,
   * or an inner join that emits no build column and whose build side has one row per key hash (each
   * probe row then has at most one partner, so the join is a semi join). Known once built.
   */
  @Override
  public boolean narrowsOnly() {
    return narrowing;
  }

  @Override
  public List<String> outputColumns(List<String> input) {
    if (narrowsOnly()) {
      return input;
    }
    List<String> names = new ArrayList<>(probeOutputs != null ? probeOutputs : input);
    buildOutputs.forEach(column -> names.add(column.name()));
    return List.copyOf(names);
  }

  @Override
  public Schema outputSchema(Input input) {
    Bound bound = bind(input);
    return ScratchBatch.schema(bound.names(), bound.types());
  }

  @Override
  public Worker open(Input input, ExecutionContext context) {
    Bound bound = bind(input);
    if (marks != null) {
      return new Marking(bound);
    }
    return narrowing ? new Narrowing(bound) : new Pairing(bound, context);
  }

  /**
   * The stage's expressions bound over one thread's input: key kernels, probe output columns, output
   * names and types.
   */
  private record Bound(LongKernel[] keys, OutputColumn[] probeOutputs, List<String> names, List<ColumnType> types) {}

  private Bound bind(Input input) {
    Binder binder = input.binder();
    LongKernel[] keys = new LongKernel[probeKeys.size()];
    List<ColumnType> keyTypes = new ArrayList<>();
    for (int k = 0; k < keys.length; k++) {
      Expr key = input.resolved(Expr.col(probeKeys.get(k)));
      ColumnType keyType;
      try {
        keyType = binder.typeOf(key);
      } catch (IllegalArgumentException e) {
        throw new JoinKeyException("no left key column '" + probeKeys.get(k) + "': " + e.getMessage());
      }
      KeyColumns.requireKeyType("left", probeKeys.get(k), keyType);
      keyTypes.add(keyType);
      keys[k] = binder.bindLong(key);
    }
    KeyColumns.requireSameTypes(probeKeys, keyTypes, buildKeys.names(), buildKeys.types());
    if (narrowsOnly()) {
      return new Bound(keys, new OutputColumn[0], List.of(), List.of());
    }
    List<String> outputs = probeOutputs != null ? probeOutputs : input.columns();
    List<String> names = new ArrayList<>();
    List<ColumnType> types = new ArrayList<>();
    OutputColumn[] columns = new OutputColumn[outputs.size()];
    for (int c = 0; c < outputs.size(); c++) {
      NamedExpr output = new NamedExpr(input.resolved(Expr.col(outputs.get(c))), outputs.get(c));
      columns[c] = OutputColumn.bind(binder, output, OutputColumn.Target.SCRATCH_BATCH);
      names.add(output.name());
      types.add(columns[c].type());
    }
    for (BuildColumn column : buildOutputs) {
      if (input.columns().contains(column.name())) {
        throw new IllegalArgumentException("column '" + column.name() + "' is on both sides of the join; rename it "
            + "with project() before joining");
      }
      names.add(column.name());
      types.add(column.type());
    }
    return new Bound(keys, columns, List.copyOf(names), List.copyOf(types));
  }

  /**
   * The part of a worker every kind shares: evaluates a chunk's keys and looks up the selected rows
   * with a non-null key that pass the filter ({@link #probe}: the rows a partner can have, often
   * few), or every selected row's entry by position ({@link #lookUp}: for the joins that also emit
   * or keep the rows without a partner).
   */
  private abstract class Lookup implements Worker {
    final LongKernel[] keyKernels;
    final long[][] keys;
    final int[] positions = new int[Chunk.CAPACITY];
    /** Table entry of the row at position k, by k; 0 for none. Filled by {@link #lookUp} only. */
    final long[] entryAt = new long[Chunk.CAPACITY];
    /** The positions {@link #probe} looked up, in increasing order, and their {@link #entries}. */
    final int[] keyed = new int[Chunk.CAPACITY];
    /** The table entry of {@code keyed[i]}; 0 for none. */
    final long[] entries = new long[Chunk.CAPACITY];
    private final int[] candidates = new int[Chunk.CAPACITY];
    private final long[] hashes = new long[Chunk.CAPACITY];
    private long sampledRows;
    private long sampledMatches;
    private long sampledSteps;
    private long sampledAscending;
    private int sampledChunks;

    Lookup(Bound bound) {
      this.keyKernels = bound.keys();
      this.keys = new long[keyKernels.length][];
    }

    /**
     * Looks up the selected rows of {@code chunk} whose key is not null and passes the filter: lists
     * them in {@code keyed[0, m)} with their {@code entries}, and returns m. The other selected rows
     * have no partner.
     */
    int probe(Chunk chunk) {
      boolean anyNull = false;
      for (int c = 0; c < keyKernels.length; c++) {
        keys[c] = keyKernels[c].evaluate(chunk);
        anyNull |= keyKernels[c].anyNull();
      }
      KeyBitmap keySet = filter.bitmap();
      int m;
      if (keySet != null && !anyNull && chunk.isDense()) {
        m = keySet.selectAll(keys[0], chunk.count(), keyed); // no selection to copy and read back
      } else {
        m = chunk.copySelection(keyed);
        if (anyNull) {
          m = dropNullKeys(m);
        }
        if (keySet != null) {
          m = keySet.select(keys[0], keyed, m);
        }
      }
      if (table instanceof DenseKeyTable dense) { // not a pattern switch: its bootstrap costs more per chunk
        dense.entriesOf(keys[0], keyed, m, entries);
      } else {
        KeyColumns.hashValues(shape, keys, keyed, m, hashes);
        RegisterBlockedBloomFilter keysFilter = filter.bloom();
        if (keysFilter != null) {
          m = keepCandidates(keysFilter, m);
        }
        ((OpenAddressingTable) table).entriesOf(hashes, m, entries);
      }
      if (filter.undecided()) {
        sample(m);
      }
      return m;
    }

    /** Narrows {@code keyed[0, m)} to the positions whose key has no null column; returns how many. */
    private int dropNullKeys(int m) {
      int kept = 0;
      for (int i = 0; i < m; i++) {
        int k = keyed[i];
        boolean isNull = false;
        for (LongKernel kernel : keyKernels) {
          isNull |= kernel.anyNull() && kernel.nulls()[k];
        }
        keyed[kept] = k;
        kept += isNull ? 0 : 1;
      }
      return kept;
    }

    /**
     * Looks up every selected row of {@code chunk}: lists them in {@link #positions} and returns how
     * many, with the entry of position k in {@code entryAt[k]} (0: no partner, or a null key).
     */
    int lookUp(Chunk chunk) {
      int m = probe(chunk);
      int n = chunk.copySelection(positions);
      for (int i = 0; i < n; i++) {
        entryAt[positions[i]] = 0;
      }
      for (int i = 0; i < m; i++) {
        entryAt[keyed[i]] = entries[i];
      }
      return n;
    }

    /**
     * Counts how many of the {@code m} rows just looked up found their key, and for a key of one
     * column how many of them came after a key no larger, for {@link KeyFilter#decide}.
     */
    private void sample(int m) {
      sampledRows += m;
      for (int i = 0; i < m; i++) {
        sampledMatches += entries[i] != 0 ? 1 : 0;
      }
      if (keys.length == 1 && m > 1) {
        long[] key = keys[0];
        sampledSteps += m - 1;
        for (int i = 1; i < m; i++) {
          sampledAscending += key[keyed[i]] >= key[keyed[i - 1]] ? 1 : 0;
        }
      }
      if (++sampledChunks == KeyFilter.SAMPLE_CHUNKS) {
        filter.decide(sampledRows, sampledMatches, sampledAscending, sampledSteps);
      }
    }

    /** Narrows {@link #keyed} and {@link #hashes} to the {@code m} rows' hashes {@code keysFilter} passes; returns how many. */
    private int keepCandidates(RegisterBlockedBloomFilter keysFilter, int m) {
      int passed = keysFilter.select(hashes, m, candidates);
      for (int i = 0; i < passed; i++) {
        int from = candidates[i];
        keyed[i] = keyed[from];
        hashes[i] = hashes[from];
      }
      return passed;
    }

    /** Whether build row {@code row} of a found entry really has the key of position {@code k}. */
    final boolean confirms(int row, int k) {
      return shape.exact() || buildKeys.sameKey(row, keys, k);
    }

    /** Whether some build row of {@code entry}, the entry position {@code k} found, has its key. */
    final boolean matches(long entry, int k) {
      if (entry == 0) {
        return false;
      }
      if (shape.exact()) {
        return true;
      }
      if (confirms(OpenAddressingTable.firstRow(entry), k)) {
        return true;
      }
      for (int row = OpenAddressingTable.secondRow(entry); row >= 0; row = table.nextRow(row)) {
        if (confirms(row, k)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public void close() {}
  }

  /**
   * Semi joins (and inner joins that are semi joins) and anti joins: the chunk goes on with the rows
   * that have (have no) partner selected. A semi join visits only the rows {@link #probe} looked up.
   */
  private final class Narrowing extends Lookup {
    Narrowing(Bound bound) {
      super(bound);
    }

    @Override
    public void process(Chunk chunk, Consumer<Chunk> next) {
      int[] selection = chunk.selection();
      int kept = 0;
      if (type == JoinType.ANTI) {
        int n = lookUp(chunk);
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          selection[kept] = k;
          kept += matches(entryAt[k], k) ? 0 : 1;
        }
      } else {
        int m = probe(chunk);
        for (int i = 0; i < m; i++) {
          int k = keyed[i];
          selection[kept] = k;
          kept += matches(entries[i], k) ? 1 : 0;
        }
      }
      chunk.select(selection, kept);
      if (kept > 0) {
        next.accept(chunk);
      }
    }
  }

  /** A marking stage's worker: marks the build rows each chunk's rows match and passes nothing on. */
  private final class Marking extends Lookup {
    private final MemorySegment marked = marks.segment();

    Marking(Bound bound) {
      super(bound);
    }

    @Override
    public void process(Chunk chunk, Consumer<Chunk> next) {
      int m = probe(chunk);
      for (int i = 0; i < m; i++) {
        int k = keyed[i];
        long entry = entries[i];
        if (entry == 0) {
          continue;
        }
        int row = OpenAddressingTable.firstRow(entry);
        if (confirms(row, k)) {
          marked.set(ValueLayout.JAVA_BYTE, row, (byte) 1);
        }
        for (row = OpenAddressingTable.secondRow(entry); row >= 0; row = table.nextRow(row)) {
          if (confirms(row, k)) {
            marked.set(ValueLayout.JAVA_BYTE, row, (byte) 1); // every writer stores the same 1
          }
        }
      }
      chunk.select(chunk.selection(), 0);
    }
  }

  /**
   * Inner and left outer joins: (probe position, build row) pairs collected in chunk-sized blocks,
   * each written into the scratch batch (probe columns copied, build columns gathered) and emitted.
   */
  private final class Pairing extends Lookup {
    private final OutputColumn[] probeOutputs;
    private final boolean outer = type == JoinType.LEFT_OUTER;
    private final ScratchBatch out;
    private final Chunk emitted = new Chunk();
    private final int[] pairProbe = new int[Chunk.CAPACITY];
    private final int[] pairBuild = new int[Chunk.CAPACITY];
    private final int[] buildBatch = new int[Chunk.CAPACITY];
    private final int[] buildRow = new int[Chunk.CAPACITY];
    private final VarCharColumn[] dictionaries;
    private int pairs;

    Pairing(Bound bound, ExecutionContext context) {
      super(bound);
      this.probeOutputs = bound.probeOutputs();
      this.out = new ScratchBatch(bound.names(), bound.types(), Chunk.CAPACITY, context.memory().arrow());
      this.dictionaries = new VarCharColumn[bound.names().size()];
      for (int c = 0; c < buildOutputs.size(); c++) {
        dictionaries[probeOutputs.length + c] = buildOutputs.get(c).strings();
      }
    }

    @Override
    public void process(Chunk chunk, Consumer<Chunk> next) {
      int n = outer ? lookUp(chunk) : keepFound(chunk);
      for (OutputColumn output : probeOutputs) {
        output.evaluate(chunk);
      }
      for (int i = 0; i < n; i++) {
        int k = positions[i];
        long entry = entryAt[k];
        boolean matched = false;
        if (entry != 0) {
          int row = OpenAddressingTable.firstRow(entry);
          if (confirms(row, k)) {
            pair(k, row, chunk, next);
            matched = true;
          }
          for (row = OpenAddressingTable.secondRow(entry); row >= 0; row = table.nextRow(row)) {
            if (confirms(row, k)) {
              pair(k, row, chunk, next);
              matched = true;
            }
          }
        }
        if (!matched && outer) {
          pair(k, -1, chunk, next);
        }
      }
      if (pairs > 0) {
        emit(chunk, next);
      }
    }

    /**
     * Looks up the chunk's rows and lists those whose key found an entry in {@link #positions} (with
     * their {@link #entryAt}); narrows the chunk's selection to them when that drops rows, so the
     * probe columns are then evaluated for those rows only (a selective join would otherwise copy
     * every column of every chunk); returns how many. Only for inner joins: an outer join emits every
     * row. Visits only the rows {@link #probe} looked up, not every selected row.
     */
    private int keepFound(Chunk chunk) {
      int m = probe(chunk);
      int found = 0;
      for (int i = 0; i < m; i++) {
        int k = keyed[i];
        long entry = entries[i];
        positions[found] = k;
        entryAt[k] = entry;
        found += entry != 0 ? 1 : 0;
      }
      if (found < chunk.selected()) {
        chunk.select(positions, found);
      }
      return found;
    }

    private void pair(int k, int row, Chunk chunk, Consumer<Chunk> next) {
      pairProbe[pairs] = k;
      pairBuild[pairs] = row;
      if (++pairs == Chunk.CAPACITY) {
        emit(chunk, next);
      }
    }

    /** Writes the collected pairs' columns and hands them on as one chunk. */
    private void emit(Chunk chunk, Consumer<Chunk> next) {
      int count = pairs;
      pairs = 0;
      for (int c = 0; c < probeOutputs.length; c++) {
        probeOutputs[c].writePositions(chunk, pairProbe, count, out, c, dictionaries);
      }
      if (!buildOutputs.isEmpty()) {
        for (int i = 0; i < count; i++) {
          int global = pairBuild[i];
          if (global < 0) {
            buildBatch[i] = -1;
          } else {
            int b = locator.batchOf(global);
            buildBatch[i] = b;
            buildRow[i] = global - locator.start(b);
          }
        }
        for (int c = 0; c < buildOutputs.size(); c++) {
          buildOutputs.get(c).gather(buildBatch, buildRow, pairBuild, count, out, probeOutputs.length + c);
        }
      }
      emitted.reset(out.publish(count, dictionaries), 0, count);
      next.accept(emitted);
    }

    @Override
    public void close() {
      out.close();
    }
  }

  /** Frees the build table, its filter and the build side's concatenated strings; idempotent. */
  @Override
  public void close() {
    try {
      table.close();
      filter.close();
      if (marks != null) {
        marks.close();
      }
    } finally {
      buildOutputs.forEach(BuildColumn::close);
    }
  }
}
