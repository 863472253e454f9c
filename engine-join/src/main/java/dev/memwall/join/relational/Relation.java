package dev.memwall.join.relational;

import dev.memwall.core.Closing;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ChunkStage;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.spill.SpillSettings;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.join.Join;
import dev.memwall.join.JoinReport;
import dev.memwall.join.PairGather;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinKeyException;
import dev.memwall.join.common.JoinMemoryException;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.grace.GraceHashJoin;
import dev.memwall.join.pipeline.HashProbeStage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A relation under construction: a table (a base table or an intermediate result) followed by
 * pending plan steps, combined with other relations by equi-joins. Filters, projections,
 * aggregation, ordering and limits are lazy ({@link Plan} steps). A join, by default, is lazy on its
 * left input too: the right input's pending steps run, a hash table is built on the result, and the
 * left input gets a {@link HashProbeStage} as its next pending step, so its rows stream from the scan
 * through the probe (and the joins after it) to the next pipeline breaker without ever being
 * materialized. A join naming an algorithm ({@link JoinSpec#algorithm}) runs both inputs' steps,
 * joins the resulting tables with {@link Join} and gathers the requested output columns (late
 * materialization). {@link #toTable} runs what is pending and hands the result to the caller.
 *
 * <p>Memory that degrades: a default join whose build side does not fit (its hash table is refused
 * by the budget, or would exceed the context's {@linkplain ExecutionContext#memoryLimit() memory
 * limit}) runs as {@link JoinAlgorithm#HYBRID_HASH} instead, through {@link Join}, which spills the
 * partitions that do not fit into the context's spill directory; the result is the same, only the
 * left input is then materialized (where its rows do not fit either, the refusal names the hash
 * join's {@code spill} stage). With spilling off, the refusal is a
 * {@link BudgetExceededException} naming the {@value JoinSpec#OPERATOR} and its {@code build} stage.
 * Aggregations and sorts of a relation spill as those of a {@link Plan} do.
 *
 * <p>The left input of a join is the probe side and the one {@code LEFT_OUTER}, {@code SEMI} and
 * {@code ANTI} preserve; the right input is the build side, so put the smaller input on the right.
 * A semi or anti join whose left input is certainly the smaller builds on the left input instead and
 * streams the right one through it, marking the left rows it matches; so does an inner join whose
 * left input ends in a pipeline breaker and turns out smaller than the right input can be.
 * Null keys follow SQL: they match nothing ({@link JoinType}).
 *
 * <p>Ownership: a relation over {@link #scan a borrowed table} holds no memory until it runs a
 * step; one over {@link #own an owned table} or a join result frees that table when it is closed
 * or consumed, and one with pending probes frees their hash tables and build sides likewise. Every operation consumes its receiver (a join consumes both inputs when its output
 * columns are chosen, or when its configuration is refused): the receiver cannot be used again, and whatever it owned moves into the returned relation or is
 * freed when the step has run, also when the step throws. So a chain of steps never leaks
 * intermediates; only relations that are built but never consumed need {@link #close}
 * (try-with-resources). Memory is allocated from the context's {@link dev.memwall.core.memory.EngineMemory}.
 *
 * <p>Thread safety: a relation is for one thread; the steps themselves use up to
 * {@code context.threads()} workers. Bad input: an unknown column or key name, a name found on
 * both sides of a join, or key columns of unsupported or different types throw
 * {@link IllegalArgumentException} (or {@link dev.memwall.join.common.JoinKeyException}) naming it; using a
 * consumed relation throws {@link IllegalStateException}.
 */
public final class Relation implements AutoCloseable {
  private final ExecutionContext context;
  private Table source;
  private final boolean ownsSource;
  /** The pending steps over {@link #source}, or null when there are none. */
  private final Plan plan;
  /** What the pending steps use and this relation frees: the hash tables and build sides of its probes. */
  private final List<AutoCloseable> resources;
  private boolean consumed;

  private Relation(ExecutionContext context, Table source, boolean ownsSource, Plan plan,
      List<AutoCloseable> resources) {
    this.context = Objects.requireNonNull(context, "context");
    this.source = Objects.requireNonNull(source, "table");
    this.ownsSource = ownsSource;
    this.plan = plan;
    this.resources = resources;
  }

  /** A relation reading {@code table}, which stays the caller's and must stay open while this is used. */
  public static Relation scan(Table table, ExecutionContext context) {
    return new Relation(context, table, false, null, new ArrayList<>());
  }

  /** A relation that takes ownership of {@code table}: it is closed with the relation or when consumed. */
  public static Relation own(Table table, ExecutionContext context) {
    return new Relation(context, table, true, null, new ArrayList<>());
  }

  /** The execution context the steps run with. */
  public ExecutionContext context() {
    return context;
  }

  /** Keeps the rows where {@code predicate} is true (SQL WHERE: null is not true). */
  public Relation filter(Expr predicate) {
    return then(steps().filter(predicate));
  }

  /** Computes these output columns; later steps see only them. String outputs are columns or their SUBSTRINGs. */
  public Relation project(NamedExpr... outputs) {
    return then(steps().project(outputs));
  }

  /** Keeps only the named columns, in this order. */
  public Relation select(String... columns) {
    return project(Arrays.stream(columns).map(name -> Expr.col(name).as(name)).toArray(NamedExpr[]::new));
  }

  /** Groups by {@code keys} (none: one global group) and computes {@code aggregates}; keys come first in the output. */
  public Relation aggregate(List<NamedExpr> keys, Aggregate... aggregates) {
    return then(steps().aggregate(keys, aggregates));
  }

  /**
   * The approximately {@code k} most frequent values of {@code value} (after the joins before it), with
   * their counts, error bounds and guarantee flags: {@link Plan#approxTopK(Expr, int, int)}.
   */
  public Relation approxTopK(Expr value, int k, int counters) {
    return then(steps().approxTopK(value, k, counters));
  }

  /**
   * {@link #approxTopK(Expr, int, int)} with at least {@link Plan#defaultTopKCounters} counters, more
   * as the machine profile's cache allows: {@link Plan#approxTopK(Expr, int)}.
   */
  public Relation approxTopK(Expr value, int k) {
    return then(steps().approxTopK(value, k));
  }

  /**
   * The approximately {@code k} most frequent values of {@code value} within each group of equal
   * {@code group} (after the joins before it): {@link Plan#approxTopKPerGroup}.
   */
  public Relation approxTopKPerGroup(Expr group, Expr value, int k, int counters) {
    return then(steps().approxTopKPerGroup(group, value, k, counters));
  }

  /** The values of {@code value} in more than a share {@code phi} of the rows: {@link Plan#frequent(Expr, double)}. */
  public Relation frequent(Expr value, double phi) {
    return then(steps().frequent(value, phi));
  }

  /** Orders by output columns. */
  public Relation orderBy(SortKey... keys) {
    return then(steps().orderBy(keys));
  }

  /** Keeps the first {@code rows} rows (top-N directly after {@link #orderBy}). */
  public Relation limit(long rows) {
    return then(steps().limit(rows));
  }

  /** An inner join with {@code right} (the build side); name the keys with {@link JoinSpec#on}. */
  public JoinSpec join(Relation right) {
    return new JoinSpec(this, right, JoinType.INNER);
  }

  /**
   * A left outer join: every row of this relation, with {@code right}'s columns null where no row of
   * {@code right} matches.
   */
  public JoinSpec leftOuterJoin(Relation right) {
    return new JoinSpec(this, right, JoinType.LEFT_OUTER);
  }

  /** The rows of this relation with at least one match in {@code right} ({@code EXISTS}, {@code IN}), each once. */
  public JoinSpec semiJoin(Relation right) {
    return new JoinSpec(this, right, JoinType.SEMI);
  }

  /**
   * The rows of this relation with no match in {@code right} ({@code NOT EXISTS} semantics: a row
   * with a null key is kept). For {@code NOT IN} over a subquery that may yield nulls, the caller
   * must also handle those nulls; over non-null keys both are the same.
   */
  public JoinSpec antiJoin(Relation right) {
    return new JoinSpec(this, right, JoinType.ANTI);
  }

  /**
   * This relation, also owning {@code resources}: they are freed with what it owns, when it is
   * closed or once a step that consumes it has run (tables its steps read that someone must free
   * after them, such as a shared intermediate result). Consumes this relation.
   */
  public Relation holding(List<? extends AutoCloseable> resources) {
    Relation successor = then(steps());
    successor.resources.addAll(resources);
    return successor;
  }

  /** Runs the pending steps and hands the result to the caller, who closes it; consumes this relation. */
  public Table toTable() {
    boolean owned = ownsResult();
    Table table = context.run(this::run);
    // a borrowed table with no pending step: the caller gets a copy it may close
    return owned ? table : Plan.scan(table).execute(context);
  }

  /**
   * The pending steps as {@link Plan#explain} describes them, without running them; the join probes
   * among them name their build sides. A join's build side runs when its output columns are chosen
   * ({@link JoinSpec#keep}), so what this describes is what is still to run, not consumed.
   */
  public String explain() {
    return steps().explain();
  }

  /**
   * Runs the pending steps as a stream of standard Arrow batches in {@code allocator} (the host's),
   * as {@link Plan#stream} does: the rows of a relation ending in joins and filters are produced
   * round by round as the host loads them, never held whole. Consumes this relation: closing the
   * reader frees what it owned (its table, its joins' build sides).
   */
  public ArrowReader stream(BufferAllocator allocator) {
    Plan steps = steps();
    List<AutoCloseable> owned = new ArrayList<>(resources);
    if (ownsSource) {
      owned.add(source);
    }
    consumed = true;
    source = null;
    resources.clear();
    try {
      return steps.stream(context, allocator, () -> Closing.closeAll(owned));
    } catch (RuntimeException | Error e) {
      Closing.closeAll(owned);
      throw e;
    }
  }

  /** Frees what this relation owns, unless a step consumed it; idempotent. */
  @Override
  public void close() {
    if (!consumed) {
      release();
    }
  }

  private Plan steps() {
    requireUsable();
    return plan != null ? plan : Plan.scan(source);
  }

  /** The relation with {@code next} as its pending steps; this one hands its table and resources over. */
  private Relation then(Plan next) {
    Relation successor = new Relation(context, source, ownsSource, next, new ArrayList<>(resources));
    consumed = true;
    source = null;
    resources.clear();
    return successor;
  }

  /** The relation with {@code stage} as its next pending step, owning {@code owned} (the stage's build side) too. */
  private Relation then(ChunkStage stage, List<AutoCloseable> owned) {
    Relation successor = then(steps().stage(stage));
    successor.resources.addAll(owned);
    return successor;
  }

  private static List<String> names(Table table) {
    return names(table.schema());
  }

  private static List<String> names(Schema schema) {
    return schema.getFields().stream().map(Field::getName).toList();
  }

  /** The names of the columns this relation has after its pending steps. */
  private List<String> columnNames() {
    requireUsable();
    return plan != null ? plan.columnNames() : names(source);
  }

  /**
   * The types {@code keys} will have after the pending steps, derived without running them.
   *
   * @throws JoinKeyException naming a key this relation will not have
   */
  private List<ColumnType> keyTypes(List<String> keys) {
    Schema schema = plan != null ? plan.schema() : source.schema();
    List<ColumnType> keyTypes = new ArrayList<>();
    for (String key : keys) {
      Field field = schema.getFields().stream().filter(f -> f.getName().equals(key)).findFirst()
          .orElseThrow(() -> new JoinKeyException("no left key column '" + key + "' among " + names(schema)));
      try {
        keyTypes.add(ColumnType.of(field));
      } catch (IllegalArgumentException e) {
        throw new JoinKeyException("left key column '" + key + "' has an unsupported type: " + e.getMessage());
      }
    }
    return keyTypes;
  }

  /** Whether this relation's pending steps stream its rows (filters, projections, probes: no pipeline breaker). */
  private boolean streams() {
    requireUsable();
    return plan == null || plan.streams();
  }

  /** An upper bound of the rows this relation has after its pending steps, or {@link Long#MAX_VALUE}. */
  private long maxRows() {
    requireUsable();
    return plan != null ? plan.maxRows() : source.rowCount();
  }

  private void requireUsable() {
    if (consumed) {
      throw new IllegalStateException("this relation was already consumed by a step; use the relation that step returned");
    }
  }

  /** Whether {@link #run} returns a table the caller must free. */
  private boolean ownsResult() {
    return ownsSource || plan != null;
  }

  /**
   * Runs the pending steps; returns the source itself when there are none. Consumes this relation:
   * an owned source is freed once the steps have run, or handed over with the result (the caller
   * frees the result if {@link #ownsResult} said so).
   */
  private Table run() {
    requireUsable();
    consumed = true;
    if (plan == null) {
      Table input = source;
      source = null;
      return input;
    }
    Table result;
    try {
      result = plan.execute(context);
    } catch (RuntimeException | Error e) {
      try {
        release();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    try {
      release();
    } catch (RuntimeException e) {
      result.close();
      throw e;
    }
    return result;
  }

  private void release() {
    consumed = true;
    List<AutoCloseable> owned = new ArrayList<>();
    if (ownsSource && source != null) {
      owned.add(source);
    }
    owned.addAll(resources);
    source = null;
    resources.clear();
    Closing.closeAll(owned);
  }

  /**
   * A join being configured: its keys, then its output columns, which run it. Both input relations
   * are consumed when the output is chosen (by {@link #keep}, {@link #keepAll} or
   * {@link #keepLeftAndRight}), however the join ends. Not thread-safe.
   */
  public static final class JoinSpec {
    /** The operator's name in errors and reports. */
    public static final String OPERATOR = "hash join";

    /** System property naming the algorithm of joins that do not choose one: {@value}. */
    public static final String ALGORITHM_PROPERTY = "memwall.join.algorithm";

    private final Relation left;
    private final Relation right;
    private final JoinType type;
    private List<String> leftKeys;
    private List<String> rightKeys;
    private JoinAlgorithm algorithm;

    private JoinSpec(Relation left, Relation right, JoinType type) {
      left.requireUsable();
      Objects.requireNonNull(right, "right").requireUsable();
      if (left == right) {
        throw new IllegalArgumentException("a relation cannot be joined with itself; materialize it with toTable() "
            + "and scan the table twice");
      }
      this.left = left;
      this.right = right;
      this.type = type;
      try {
        this.algorithm = defaultAlgorithm();
      } catch (IllegalArgumentException e) {
        left.close();
        right.close();
        throw e;
      }
    }

    /**
     * {@link JoinAlgorithm#AUTO}, unless the system property {@value #ALGORITHM_PROPERTY} names another
     * algorithm for every join without an explicit {@link #algorithm} (for experiments that compare
     * algorithms over whole queries).
     *
     * @throws IllegalArgumentException naming the property when its value is not an algorithm
     */
    private static JoinAlgorithm defaultAlgorithm() {
      String name = System.getProperty(ALGORITHM_PROPERTY);
      if (name == null || name.isBlank()) {
        return JoinAlgorithm.AUTO;
      }
      try {
        return JoinAlgorithm.valueOf(name.trim().toUpperCase(java.util.Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("system property " + ALGORITHM_PROPERTY + "=" + name
            + " is not a join algorithm; use one of " + Arrays.toString(JoinAlgorithm.values()), e);
      }
    }

    /** Joins on {@code leftKey = rightKey}. */
    public JoinSpec on(String leftKey, String rightKey) {
      return on(List.of(leftKey), List.of(rightKey));
    }

    /** Joins on {@code leftKeys[i] = rightKeys[i]} for every i (a composite key). */
    public JoinSpec on(List<String> leftKeys, List<String> rightKeys) {
      if (leftKeys.isEmpty() || leftKeys.size() != rightKeys.size()) {
        left.close();
        right.close();
        throw new IllegalArgumentException("a join needs the same positive number of left and right keys, got "
            + leftKeys + " and " + rightKeys);
      }
      this.leftKeys = List.copyOf(leftKeys);
      this.rightKeys = List.copyOf(rightKeys);
      return this;
    }

    /** Runs the join with this algorithm instead of the planner's choice. */
    public JoinSpec algorithm(JoinAlgorithm algorithm) {
      this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
      return this;
    }

    /**
     * Runs the join and keeps the named columns: each name is looked up on both inputs and must be
     * on exactly one (semi and anti joins: on the left input). The output has the left input's
     * columns first, then the right input's, each side in the order named here.
     */
    public Relation keep(String... columns) {
      return run((leftInput, rightInput) -> {
        List<String> fromLeft = new ArrayList<>();
        List<String> fromRight = new ArrayList<>();
        for (String name : columns) {
          boolean inLeft = leftInput.contains(name);
          boolean inRight = type != JoinType.SEMI && type != JoinType.ANTI && rightInput.contains(name);
          if (inLeft && inRight) {
            throw new IllegalArgumentException("column '" + name + "' is on both sides of the join; rename it "
                + "with project() before joining");
          }
          if (!inLeft && !inRight) {
            throw new IllegalArgumentException("no column '" + name + "' in the join's "
                + (type == JoinType.SEMI || type == JoinType.ANTI ? "left input " + leftInput
                : "inputs " + leftInput + " and " + rightInput));
          }
          (inLeft ? fromLeft : fromRight).add(name);
        }
        return new Output(fromLeft, fromRight);
      });
    }

    /**
     * Runs the join and keeps every column of the left input, then (inner and left outer joins)
     * every column of the right input; names must not repeat.
     */
    public Relation keepAll() {
      return run((leftInput, rightInput) -> new Output(leftInput,
          type == JoinType.SEMI || type == JoinType.ANTI ? List.of() : rightInput));
    }

    /** Runs the join and keeps {@code leftColumns} of the left input, then {@code rightColumns} of the right. */
    public Relation keepLeftAndRight(List<String> leftColumns, List<String> rightColumns) {
      if (!rightColumns.isEmpty() && (type == JoinType.SEMI || type == JoinType.ANTI)) {
        throw new IllegalArgumentException(type + " joins output only left columns, not " + rightColumns);
      }
      return run((l, r) -> new Output(List.copyOf(leftColumns), List.copyOf(rightColumns)));
    }

    /** The gathered columns of each side. */
    private record Output(List<String> left, List<String> right) {}

    /** Chooses the output columns given the names of the inputs' columns. */
    private interface OutputChoice {
      Output choose(List<String> leftColumns, List<String> rightColumns);
    }

    private Relation run(OutputChoice choice) {
      if (leftKeys == null) {
        left.close();
        right.close();
        throw new IllegalStateException("name the join keys with on(...) before choosing the output columns");
      }
      return left.context.run(() -> algorithm == JoinAlgorithm.AUTO ? runPipelined(choice) : runMaterialized(choice));
    }

    /**
     * The default: the right input runs and is hashed; the left input stays lazy and gets the probe as
     * its next pending step ({@link HashProbeStage}). A semi or anti join whose left input is certainly
     * the smaller one hashes the left input instead and streams the right one through it
     * ({@link #markLeft}): before running the right input when that is a stream of rows (no pipeline
     * breaker), else once it has run and turned out larger; an inner join whose left input has a
     * pipeline breaker may hash that input likewise ({@link #buildOnLeft}). An inner join that keeps
     * no right column and whose right keys turn out unique is a semi join, and its probe narrows as one
     * ({@link HashProbeStage#narrowsOnly}): the left rows are not copied into pairs.
     */
    private Relation runPipelined(OutputChoice choice) {
      ExecutionContext context = left.context;
      boolean semiOrAnti = type == JoinType.SEMI || type == JoinType.ANTI;
      if (semiOrAnti && right.streams() && left.maxRows() < right.maxRows()) {
        Output output = choice.choose(left.columnNames(), right.columnNames());
        return markLeft(right, output.left(), context);
      }
      if (type == JoinType.INNER && !left.streams() && right.streams() && right.maxRows() < Long.MAX_VALUE) {
        return buildOnLeft(choice, context);
      }
      boolean ownsRight = right.ownsResult();
      Table rightTable = null;
      try {
        rightTable = right.run();
        Output output = choice.choose(left.columnNames(), names(rightTable));
        if (semiOrAnti && left.maxRows() < rightTable.rowCount()) {
          Relation probe = ownsRight ? Relation.own(rightTable, context) : Relation.scan(rightTable, context);
          rightTable = null; // the probe relation owns it now
          return markLeft(probe, output.left(), context);
        }
        if (HashProbeStage.bytesFor(rightTable.rowCount()) > context.memoryLimit().orElse(Long.MAX_VALUE)
            && context.spilling()) {
          return spillingJoin(rightTable, output, context); // over the query's memory limit: spill at once
        }
        HashProbeStage stage;
        try {
          stage = HashProbeStage.build(rightTable, rightKeys, type, leftKeys, left.keyTypes(leftKeys),
              semiOrAnti ? null : output.left(), output.right(), context.machine().fastCacheBytes(), context);
        } catch (JoinMemoryException | BudgetExceededException e) {
          if (!context.spilling()) {
            throw refusal(e).in(OPERATOR, "build", "spilling is off; give the query more memory or let it spill");
          }
          return spillingJoin(rightTable, output, context);
        }
        List<AutoCloseable> owned = new ArrayList<>(List.of(stage));
        if (ownsRight) {
          owned.add(rightTable);
        }
        List<String> before = left.columnNames();
        Relation joined = left.then(stage, owned);
        rightTable = null; // the joined relation owns it now
        // a semi or anti join, or an inner join that is a semi join (no right column kept, the right keys
        // unique), narrows the left rows' selection and passes every left column on: keep the chosen ones
        return stage.narrowsOnly() && !output.left().equals(before) ? joined.select(output.left().toArray(String[]::new)) : joined;
      } finally {
        if (ownsRight && rightTable != null) {
          rightTable.close();
        }
        left.close();
        right.close();
      }
    }

    /**
     * The fallback of a join whose build side does not fit the memory: both inputs materialized and
     * joined by the hybrid hash join of {@link Join}, which spills partitions that do not fit (into
     * the context's spill directory, within its quota; with half the query's memory limit, if one
     * is set, as its memory). Consumes the left input; {@code rightTable} stays the caller's.
     */
    private Relation spillingJoin(Table rightTable, Output output, ExecutionContext context) {
      boolean ownsLeft = left.ownsResult();
      Table leftTable = null;
      try {
        leftTable = left.run();
        SpillSettings spill = context.spillSettings();
        Join join = Join.of(context.memory(), leftTable, rightTable).on(leftKeys, rightKeys).type(type)
            .algorithm(JoinAlgorithm.HYBRID_HASH).threads(context.threads()).profile(context.machine())
            .spillDirectory(spill.root()).spillQuota(spill.quotaBytes());
        context.memoryLimit().ifPresent(limit -> join.memoryLimit(Math.max(1, limit / 2)));
        boolean semiOrAnti = type == JoinType.SEMI || type == JoinType.ANTI;
        Table joined;
        JoinReport run;
        try (PairGather gather = PairGather.of(leftTable, output.left(), rightTable,
            semiOrAnti ? List.of() : output.right(), context.memory().arrow())) {
          run = join.stream(gather::append);
          joined = gather.build();
        }
        Optional<GraceHashJoin.Report> report = run.spill();
        if (report.isPresent() && context.spillReports().isPresent()) {
          GraceHashJoin.Report spilled = report.get();
          try {
            context.spillReports().get().accept(new SpillReport(OPERATOR, -1, spilled.spilledBytes(),
                spilled.partitions() - spilled.residentPartitions(), spilled.maxLevel()));
          } catch (RuntimeException | Error e) {
            joined.close();
            throw e;
          }
        }
        return Relation.own(joined, context);
      } catch (BudgetExceededException e) {
        throw e.in(OPERATOR, "spill", "the hybrid hash join a build that does not fit falls back to needs the left"
            + " input's rows in memory; give the query more memory");
      } finally {
        if (ownsLeft && leftTable != null) {
          leftTable.close();
        }
      }
    }

    /** The budget's refusal behind a failed build; {@code e} itself when none is behind it. */
    private static BudgetExceededException refusal(RuntimeException e) {
      BudgetExceededException refusal = BudgetExceededException.among(e);
      if (refusal == null) {
        throw e;
      }
      return refusal;
    }

    /**
     * An inner join whose left input ends in a pipeline breaker (an aggregation, a sort) and whose
     * right input streams with a known bound on its rows: the left input runs first, as its breaker
     * makes it run whole anyway, and when it turns out to have fewer rows than the right input can
     * have, it is hashed and the right input streams through the probe instead of being hashed
     * itself (a few aggregated groups meeting a whole table, where estimates before the run cannot
     * tell how few). Otherwise, or where hashing the left result does not fit, the join goes on as usual
     * with that result as its left input. The pairs are the same either way (an inner join is
     * symmetric), the columns in the order chosen. Consumes both inputs.
     */
    private Relation buildOnLeft(OutputChoice choice, ExecutionContext context) {
      boolean ownsLeft = left.ownsResult();
      Table leftTable = null;
      HashProbeStage stage = null;
      try {
        leftTable = left.run();
        if (leftTable.rowCount() < right.maxRows()
            && HashProbeStage.bytesFor(leftTable.rowCount()) <= context.memoryLimit().orElse(Long.MAX_VALUE)) {
          Output output = choice.choose(names(leftTable), right.columnNames());
          try {
            stage = HashProbeStage.build(leftTable, leftKeys, type, rightKeys, right.keyTypes(rightKeys),
                output.right(), output.left(), context.machine().fastCacheBytes(), context);
          } catch (JoinMemoryException | BudgetExceededException e) {
            stage = null; // hashed as usual, on the right input, which spills or refuses as a join does
          }
          if (stage != null) {
            List<AutoCloseable> owned = new ArrayList<>(List.of(stage));
            if (ownsLeft) {
              owned.add(leftTable);
            }
            Relation joined = right.then(stage, owned);
            stage = null;
            leftTable = null; // the joined relation owns both now
            List<String> columns = new ArrayList<>(output.left());
            columns.addAll(output.right());
            return columns.equals(joined.columnNames()) ? joined : joined.select(columns.toArray(String[]::new));
          }
        }
        Relation ran = ownsLeft ? Relation.own(leftTable, context) : Relation.scan(leftTable, context);
        leftTable = null; // ran owns it now (if it was ours)
        return new JoinSpec(ran, right, type).on(leftKeys, rightKeys).run(choice);
      } finally {
        if (stage != null) {
          stage.close();
        }
        if (ownsLeft && leftTable != null) {
          leftTable.close();
        }
        left.close();
        right.close();
      }
    }

    /**
     * A semi or anti join that hashes its (smaller) left input: the left input runs and is hashed by a
     * marking {@link HashProbeStage}, {@code probe} (the right input) streams through it marking the
     * left rows it matches, and the result is the left table's marked rows (semi) or unmarked ones
     * (anti, which keeps rows with a null key, as they match nothing), still lazy. Consumes both.
     */
    private Relation markLeft(Relation probe, List<String> columns, ExecutionContext context) {
      boolean ownsLeft = left.ownsResult();
      Table leftTable = null;
      HashProbeStage marker = null;
      try {
        leftTable = left.run();
        marker = HashProbeStage.marking(leftTable, leftKeys, rightKeys, probe.keyTypes(rightKeys),
            context.machine().fastCacheBytes(), context);
        probe.then(marker, List.of()).toTable().close(); // marks; the marking stage passes no row on
        Relation base = ownsLeft ? Relation.own(leftTable, context) : Relation.scan(leftTable, context);
        leftTable = null; // base owns it now (if it was ours)
        Relation kept = base.then(marker.markedRows(base.source, type == JoinType.SEMI), List.of(marker));
        marker = null; // kept owns it now
        return columns.equals(kept.columnNames()) ? kept : kept.select(columns.toArray(String[]::new));
      } finally {
        if (marker != null) {
          marker.close();
        }
        if (ownsLeft && leftTable != null) {
          leftTable.close();
        }
        left.close();
        probe.close();
      }
    }

    /** A named algorithm: both inputs run, {@link Join} joins the tables and gathers the output columns. */
    private Relation runMaterialized(OutputChoice choice) {
      Table leftTable = null;
      Table rightTable = null;
      boolean ownsLeft = left.ownsResult();
      boolean ownsRight = right.ownsResult();
      try {
        leftTable = left.run();
        rightTable = right.run();
        Output output = choice.choose(names(leftTable), names(rightTable));
        ExecutionContext context = left.context;
        Table joined = Join.of(context, leftTable, rightTable)
            .on(leftKeys, rightKeys)
            .type(type)
            .algorithm(algorithm)
            .materialize(output.left(), output.right());
        return Relation.own(joined, context);
      } finally {
        if (ownsLeft && leftTable != null) {
          leftTable.close();
        }
        if (ownsRight && rightTable != null) {
          rightTable.close();
        }
        left.release();
        right.release();
      }
    }
  }
}
