package dev.memwall.core.plan;

import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.ExprText;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.frequent.SpaceSaving;
import dev.memwall.core.frequent.SummarySizing;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.HashAggregator;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.Step.Aggregation;
import dev.memwall.core.plan.Step.Filter;
import dev.memwall.core.plan.Step.FrequentValues;
import dev.memwall.core.plan.Step.Limit;
import dev.memwall.core.plan.Step.OrderBy;
import dev.memwall.core.plan.Step.Project;
import dev.memwall.core.plan.Step.Stage;
import dev.memwall.core.plan.Step.TopN;
import dev.memwall.core.vector.BatchStream;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A physical plan: a scan of a {@link Table} followed by filters, projections, a grouped
 * aggregation, ordering and a limit, built fluently and run with {@link #execute}. For example
 * TPC-H Q6:
 *
 * <pre>{@code
 * Plan.scan(lineitem)
 *     .filter(and(col("l_shipdate").between(date("1994-01-01"), date("1994-12-31")),
 *                 col("l_discount").between(decimal("0.05"), decimal("0.07")),
 *                 col("l_quantity").lt(lit(24))))
 *     .aggregate(List.of(), Aggregate.sum(col("l_extendedprice").mul(col("l_discount")), "revenue"))
 *     .execute(context);
 * }</pre>
 *
 * <p>Execution is vectorized and pipelined: filters and projections run chunk by chunk
 * ({@link Chunk#CAPACITY} rows) up to the next pipeline breaker (aggregation, order by, limit, frequent values),
 * which materializes a table the next pipeline scans. Each pipeline runs on
 * {@link ExecutionContext#threads()} workers that claim morsels of the input; aggregation workers
 * merge their groups at the end. Without ORDER BY, row order across workers is unspecified.
 *
 * <p>Projections define names later steps can use; names are resolved by substitution, and
 * identical subexpressions are evaluated once per chunk.
 *
 * <p>Ownership: the scanned table is only read; the result table is allocated from the context's
 * memory and is the caller's to close. Intermediate tables are freed as soon as the next pipeline
 * has consumed them. Thread safety: a plan is immutable and may be executed concurrently.
 */
public final class Plan {
  private final ScanSource source;
  private final List<Step> steps;

  private Plan(ScanSource source, List<Step> steps) {
    this.source = source;
    this.steps = List.copyOf(steps);
  }

  /** A plan reading every batch of {@code table}, which stays the caller's; it may run any number of times. */
  public static Plan scan(Table table) {
    return new Plan(new ScanSource.OfTable(Objects.requireNonNull(table, "table")), List.of());
  }

  /**
   * A plan reading {@code stream} batch by batch as its first pipeline consumes it: each batch is
   * closed once its rows have passed through, so the input is never held whole (only pipeline
   * breakers, an aggregation or a sort, hold what they need). The plan runs once: a second execution
   * is refused. The stream stays the caller's to close, after the execution.
   */
  public static Plan scan(BatchStream stream) {
    return new Plan(new ScanSource.OfStream(Objects.requireNonNull(stream, "stream"), new AtomicBoolean()), List.of());
  }

  private Plan then(Step step) {
    List<Step> next = new ArrayList<>(steps);
    next.add(step);
    return new Plan(source, next);
  }

  /** Keeps the rows where {@code predicate} is true. */
  public Plan filter(Expr predicate) {
    return then(new Filter(predicate));
  }

  /** Computes these output columns; later steps see only them. */
  public Plan project(NamedExpr... outputs) {
    return then(new Project(List.of(outputs)));
  }

  /**
   * Passes the rows through {@code stage} (a join probe, for example), in the pipeline: the steps
   * after it see what it emits.
   */
  public Plan stage(ChunkStage stage) {
    return then(new Stage(Objects.requireNonNull(stage, "stage")));
  }

  /** Groups by {@code keys} (none: one global group) and computes {@code aggregates}. */
  public Plan aggregate(List<NamedExpr> keys, Aggregate... aggregates) {
    return then(new Aggregation(List.copyOf(keys), List.of(aggregates)));
  }

  /**
   * The approximately {@code k} most frequent non-null values of {@code value}, with at least
   * {@link #defaultTopKCounters} counters per worker, and as many more as fit the cache level that
   * holds their lookup on the execution's {@linkplain ExecutionContext#machine machine profile}
   * ({@link SummarySizing#atLeast}); see {@link #approxTopK(Expr, int, int)}.
   */
  public Plan approxTopK(Expr value, int k) {
    if (k < 1) {
      throw new IllegalArgumentException("approxTopK needs k >= 1, got " + k);
    }
    return then(new FrequentValues(null, Objects.requireNonNull(value, "value"), true, k, Double.NaN,
        defaultTopKCounters(k), true));
  }

  /**
   * The approximately {@code k} most frequent non-null values of {@code value} (an integral, date,
   * timestamp, boolean or decimal expression, or a string column, plain or dictionary-encoded), from
   * Space-Saving summaries ({@link SpaceSaving}) of {@code counters} counters: one per worker over the
   * rows that reach it, merged at the end; each summary's lookup gets the slots the cache level that
   * holds it allows on the execution's machine profile ({@link SummarySizing#forCounters}). The result has at most k rows, largest count first: the
   * value (named after its column, else {@code value}), {@code count} (an upper bound of its true
   * count), {@code error_bound} (the true count is at least {@code count - error_bound}, which is at
   * most N / counters for N non-null rows) and {@code guaranteed} (its true count is at least that of
   * every value left out, so it belongs to the top k).
   *
   * <p>It is a step of the plan rather than an {@link Aggregate}, because its answer is several rows
   * (a value each) where an aggregate is one value per group, and because its state is a bounded
   * summary that merges across workers instead of a group table; later steps see its rows as any
   * other table (to order them by value, say).
   *
   * @throws IllegalArgumentException for k below 1 or counters outside 1 to
   *     {@link SpaceSaving#MAX_COUNTERS}; the value's type is checked with the plan's (a FLOAT64 or
   *     computed string value is refused by {@link #schema} and {@link #execute})
   */
  public Plan approxTopK(Expr value, int k, int counters) {
    if (k < 1) {
      throw new IllegalArgumentException("approxTopK needs k >= 1, got " + k);
    }
    checkCounters(counters);
    return then(new FrequentValues(null, Objects.requireNonNull(value, "value"), true, k, Double.NaN, counters, false));
  }

  /**
   * The non-null values of {@code value} occurring in more than a share {@code phi} of the non-null
   * rows, with at least {@code ceil(2 / phi)} counters per worker (errors at most half the
   * threshold), and as many more as fit the cache level that holds their lookup on the execution's
   * machine profile ({@link SummarySizing#atLeast}); see {@link #frequent(Expr, double, int)}.
   */
  public Plan frequent(Expr value, double phi) {
    checkPhi(phi);
    int counters = (int) Math.min(SpaceSaving.MAX_COUNTERS, Math.ceil(2 / phi));
    return then(new FrequentValues(null, Objects.requireNonNull(value, "value"), false, 0, phi, counters, true));
  }

  /**
   * The non-null values of {@code value} occurring in more than {@code phi * N} of the N non-null rows,
   * largest count first, in the columns of {@link #approxTopK(Expr, int, int)}: none is missed, and
   * those flagged {@code guaranteed} certainly occur that often (the others may not). The same
   * summaries compute it, so it is a plan step for the same reasons.
   *
   * @throws IllegalArgumentException for phi outside (0, 1], or counters below {@code ceil(1 / phi)}
   *     (fewer could miss a value above the threshold) or above {@link SpaceSaving#MAX_COUNTERS}
   */
  public Plan frequent(Expr value, double phi, int counters) {
    checkPhi(phi);
    checkCounters(counters);
    if (counters < Math.ceil(1 / phi)) {
      throw new IllegalArgumentException("frequent values above " + phi + " of the rows need at least "
          + (long) Math.ceil(1 / phi) + " counters, got " + counters);
    }
    return then(new FrequentValues(null, Objects.requireNonNull(value, "value"), false, 0, phi, counters, false));
  }

  /**
   * The approximately {@code k} most frequent non-null values of {@code value} within each group of
   * rows of equal {@code group} (an integral, date, timestamp or decimal expression; the rows whose
   * key is null form one group), each group's from its own Space-Saving summaries of {@code counters}
   * counters per worker, merged at the end. The rows are those of {@link #approxTopK(Expr, int, int)}
   * for each group, with the group key first (named after its column, else {@code group}): by
   * ascending key, the null key last, largest count first within a group; each row's bounds and flag
   * hold for its group's rows.
   *
   * <p>Memory: a summary of about 100 bytes a counter for every group a worker sees, charged to the
   * execution's memory: pick the counters with the number of groups in mind (the answer of a group
   * is guaranteed only when its values are skewed enough for them). The groups' summaries share the
   * caches, so each gets the least lookup rather than one fitted to a level.
   *
   * @throws IllegalArgumentException for k below 1 or counters outside 1 to
   *     {@link SpaceSaving#MAX_COUNTERS}; a group key that is not integral is refused with the plan's
   *     types, as a FLOAT64 value is
   */
  public Plan approxTopKPerGroup(Expr group, Expr value, int k, int counters) {
    if (k < 1) {
      throw new IllegalArgumentException("approxTopKPerGroup needs k >= 1, got " + k);
    }
    checkCounters(counters);
    return then(new FrequentValues(Objects.requireNonNull(group, "group"), Objects.requireNonNull(value, "value"),
        true, k, Double.NaN, counters, false));
  }

  /**
   * The least counters {@link #approxTopK(Expr, int)} uses: 8 per value asked for, at least 256; more
   * where the lookup's cache level has room for them.
   */
  public static int defaultTopKCounters(int k) {
    return (int) Math.min(SpaceSaving.MAX_COUNTERS, Math.max(256, 8L * k));
  }

  private static void checkPhi(double phi) {
    if (!(phi > 0 && phi <= 1)) {
      throw new IllegalArgumentException("the support phi must lie in (0, 1], got " + phi);
    }
  }

  private static void checkCounters(int counters) {
    if (counters < 1 || counters > SpaceSaving.MAX_COUNTERS) {
      throw new IllegalArgumentException("a Space-Saving summary needs 1 to " + SpaceSaving.MAX_COUNTERS
          + " counters, got " + counters);
    }
  }

  /** Orders by output columns. */
  public Plan orderBy(SortKey... keys) {
    return then(new OrderBy(List.of(keys)));
  }

  /** Keeps the first {@code rows} rows (top-N after {@link #orderBy}). */
  public Plan limit(long rows) {
    if (rows < 0) {
      throw new IllegalArgumentException("limit must be >= 0, got " + rows);
    }
    if (!steps.isEmpty() && steps.getLast() instanceof OrderBy order) {
      List<Step> next = new ArrayList<>(steps.subList(0, steps.size() - 1));
      next.add(new TopN(order.keys(), rows));
      return new Plan(source, next);
    }
    return then(new Limit(rows));
  }

  /**
   * The schema of the result, derived without reading a row: the names and types {@link #execute}
   * will produce (computed strings may be encoded differently).
   *
   * @throws IllegalArgumentException for an expression that does not fit its input (an unknown
   *     column, a type error in a filter or projection, a grouping key or aggregate of a type the
   *     engine cannot compute), as execute would
   */
  public Schema schema() {
    Schema schema = source.schema();
    int i = 0;
    while (i < steps.size()) {
      List<Step> pipeline = new ArrayList<>();
      while (i < steps.size() && Step.isStreaming(steps.get(i))) {
        pipeline.add(steps.get(i++));
      }
      Step breaker = i < steps.size() ? steps.get(i++) : null;
      Pipeline chain = Pipeline.of(schema, pipeline);
      chain.checkFilters();
      Binder binder = new Binder(chain.outputSchema());
      List<NamedExpr> columns = chain.outputs;
      if (breaker instanceof Aggregation a) {
        List<NamedExpr> keys = a.resolvedKeys(chain.aliases);
        List<Aggregate> aggregates = a.resolvedAggregates(chain.aliases);
        List<ColumnType> types = HashAggregator.resultTypes(binder, keys, aggregates);
        List<Field> fields = new ArrayList<>();
        for (int k = 0; k < types.size(); k++) {
          String name = k < keys.size() ? keys.get(k).name() : aggregates.get(k - keys.size()).name();
          fields.add(types.get(k).toField(name, true, null));
        }
        schema = new Schema(fields);
      } else if (breaker instanceof FrequentValues f) {
        List<ColumnType> types = FrequentCollector.resultTypes(binder, f.resolved(chain.aliases));
        List<String> names = f.columnNames();
        List<Field> fields = new ArrayList<>();
        for (int c = 0; c < types.size(); c++) {
          fields.add(types.get(c).toField(names.get(c), true, null));
        }
        schema = new Schema(fields);
      } else if (columns != null) {
        schema = new Schema(columns.stream().map(c -> binder.typeOf(c.expr()).toField(c.name(), true, null)).toList());
      } else {
        schema = chain.outputSchema();
      }
    }
    return schema;
  }

  /**
   * The physical plan as text, derived without running anything (nothing is read or allocated): one
   * block per pipeline with what it scans, the filters, projections and stages (join probes, with
   * their build sides) it streams rows through, and the breaker that ends it (hash aggregation, sort,
   * top-N, limit); then the result's columns and the most rows it can have, where that is known.
   *
   * @throws IllegalArgumentException as {@link #execute} would, for a plan that does not fit its input
   */
  public String explain() {
    Schema result = schema();
    StringBuilder out = new StringBuilder();
    String input = switch (source) {
      case ScanSource.OfTable t -> "table of " + t.table().rowCount() + " rows in " + t.table().batches().size()
          + " batches " + names(t.schema());
      case ScanSource.OfStream s -> "stream " + names(s.schema()) + " (read once, batch by batch)";
    };
    int i = 0;
    int pipeline = 1;
    do {
      out.append("pipeline ").append(pipeline).append(": scan ").append(input).append('\n');
      while (i < steps.size() && Step.isStreaming(steps.get(i))) {
        out.append("  ").append(switch (steps.get(i++)) {
          case Filter f -> "filter " + ExprText.of(f.predicate());
          case Project p -> "project " + p.outputs().stream().map(Plan::describe).toList();
          case Stage st -> st.stage().describe();
          default -> throw new AssertionError();
        }).append('\n');
      }
      Step breaker = i < steps.size() ? steps.get(i++) : null;
      out.append("  -> ").append(switch (breaker) {
        case Aggregation a -> (a.keys().isEmpty() ? "aggregation" : "hash aggregation by "
            + a.keys().stream().map(Plan::describe).toList()) + " computing " + a.aggregates();
        case OrderBy o -> "sort by " + describe(o.keys());
        case TopN t -> "top " + t.rows() + " by " + describe(t.keys()) + " (bounded heap)";
        case FrequentValues f -> f.describe();
        case Limit l -> "limit " + l.rows();
        case null, default -> "collect";
      }).append('\n');
      input = "the result of pipeline " + pipeline++;
    } while (i < steps.size());
    long rows = maxRows();
    out.append("result: ").append(result.getFields().stream().map(f -> f.getName() + " " + f.getType()).toList())
        .append(rows == Long.MAX_VALUE ? "" : ", at most " + rows + " rows");
    return out.toString();
  }

  private static List<String> names(Schema schema) {
    return schema.getFields().stream().map(Field::getName).toList();
  }

  private static String describe(NamedExpr output) {
    String text = ExprText.of(output.expr());
    return text.equals(output.name()) ? text : text + " AS " + output.name();
  }

  private static String describe(List<SortKey> keys) {
    return String.join(", ", keys.stream().map(k -> k.column() + (k.descending() ? " DESC" : " ASC")
        + (k.nullsFirst() ? " NULLS FIRST" : "")).toList());
  }

  /** The names of the result's columns, in order, as {@link #execute} will name them. */
  public List<String> columnNames() {
    List<String> names = source.schema().getFields().stream().map(Field::getName).toList();
    for (Step step : steps) {
      names = switch (step) {
        case Project p -> p.outputs().stream().map(NamedExpr::name).toList();
        case Stage s -> s.stage().outputColumns(names);
        case Aggregation a -> java.util.stream.Stream.concat(a.keys().stream().map(NamedExpr::name),
            a.aggregates().stream().map(Aggregate::name)).toList();
        case FrequentValues f -> f.columnNames();
        case Filter f -> names;
        case OrderBy o -> names;
        case Limit l -> names;
        case TopN t -> names;
      };
    }
    return names;
  }

  /** Whether every step streams rows (filters, projections, stages): the plan has no pipeline breaker. */
  public boolean streams() {
    return steps.stream().allMatch(Step::isStreaming);
  }

  /**
   * An upper bound of the rows {@link #execute} returns, or {@link Long#MAX_VALUE} when none is known
   * without running the plan (a stage that may emit more rows than it receives).
   */
  public long maxRows() {
    long rows = source.maxRows();
    for (Step step : steps) {
      rows = switch (step) {
        case Stage s -> s.stage().narrowsOnly() ? rows : Long.MAX_VALUE;
        case Aggregation a -> rows == Long.MAX_VALUE ? rows : Math.max(1, rows);
        case Limit l -> Math.min(rows, l.rows());
        case TopN t -> Math.min(rows, t.rows());
        case FrequentValues f -> f.group() != null ? rows : Math.min(rows, f.topK() ? f.k() : f.counters());
        case Filter f -> rows;
        case Project p -> rows;
        case OrderBy o -> rows;
      };
    }
    return rows;
  }

  /**
   * Runs the plan; the caller owns and closes the result.
   *
   * @throws IllegalArgumentException as {@link #schema} does, for a plan that does not fit its
   *     input: {@link #schema}'s checks run before anything is allocated
   * @throws dev.memwall.core.concurrent.QueryCancelledException if the context's token is cancelled,
   *     its timeout passes or the calling thread is interrupted first; everything the plan allocated
   *     is freed by then
   */
  public Table execute(ExecutionContext context) {
    schema(); // every pipeline's expressions, keys and aggregates, checked before the first allocates
    return context.run(() -> new PlanExecution(source, steps, context).run());
  }

  /**
   * Runs the plan as a stream of standard Arrow batches allocated from {@code allocator} (the
   * host's), a {@link TableReader}: the reader's schema ({@link dev.memwall.core.arrow.StandardArrow#schema} of
   * {@link #schema()}) is known before anything runs and does not depend on the data or the
   * operators chosen. Nothing runs until the first {@link ArrowReader#loadNextBatch}. The result is
   * produced in {@linkplain #parts parts}, so a result that streams is never held whole.
   *
   * <p>Control: each load runs under the context's executor, token and interrupt; the timeout counts
   * from the first load. Closing the reader early frees everything the plan holds (and closes a
   * streamed input's batches in flight). Ownership: the reader is the caller's to close; its batches
   * are valid until the next load. Thread safety: one consumer.
   *
   * @throws IllegalArgumentException as {@link #execute} does, before anything runs
   */
  public ArrowReader stream(ExecutionContext context, BufferAllocator allocator) {
    return stream(context, allocator, null);
  }

  /**
   * As {@link #stream(ExecutionContext, BufferAllocator)}, closing {@code resources} (what the plan's
   * stages and input need, such as join build sides; null: none) when the reader is closed.
   */
  public ArrowReader stream(ExecutionContext context, BufferAllocator allocator, AutoCloseable resources) {
    return TableReader.of(schema(), rounds(context, resources), allocator); // schema() checks the plan once
  }

  /**
   * Runs the plan as {@link #stream} does, handing out memwall's tables, a part at a time, for a host
   * that reads memwall's columns itself. When the plan ends in a stream of rows (filters,
   * projections, join probes), each part runs the last pipeline only until about
   * {@value #STREAM_BATCH_ROWS} rows per thread are ready; when it ends in an ORDER BY or a top-N that
   * spilled, each part is merged from the sorted runs as it is asked for, so that memory holds the
   * merge's readers and one part, however large the result; when it ends in an aggregation whose groups
   * went out as partitioned runs (it spilled, or its threads' tables merge by partitions), each part
   * aggregates a round of partitions (streaming steps after the sort or the aggregation, such as the
   * projection SQL plans end with, run over each part); any other result (one that fit in memory,
   * frequent values) is produced first and handed out as one part.
   *
   * <p>Control and ownership: as {@link #stream}'s. Each part is the caller's to close; closing the
   * parts early frees everything the plan holds, then {@code resources} (may be null).
   *
   * @throws IllegalArgumentException as {@link #execute} does, before anything runs
   */
  public TableReader.Tables parts(ExecutionContext context, AutoCloseable resources) {
    schema(); // every pipeline's expressions, keys and aggregates, checked before the first allocates
    return rounds(context, resources);
  }

  /** The parts of a plan already checked, under the context's controls. */
  private TableReader.Tables rounds(ExecutionContext context, AutoCloseable resources) {
    return new ControlledRounds(context, () -> new PlanExecution(source, steps, context).rounds(), resources);
  }

  /** Rows per thread a streamed result's round collects before the reader hands them out. */
  static final int STREAM_BATCH_ROWS = 64 * 1024;

  @Override
  public String toString() {
    return "Plan[scan " + source.schema().getFields().stream().map(Field::getName).toList() + " -> " + steps + "]";
  }

}
