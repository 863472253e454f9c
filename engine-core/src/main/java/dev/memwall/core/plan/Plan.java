package dev.memwall.core.plan;

import dev.memwall.core.Closing;
import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.concurrent.Workers;
import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.ExprText;
import dev.memwall.core.expr.FilterKernel;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.expr.Substitution;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.ExternalSort;
import dev.memwall.core.operator.HashAggregator;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.operator.Sorter;
import dev.memwall.core.operator.SpillingAggregation;
import dev.memwall.core.vector.BatchStream;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
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
 * ({@link Chunk#CAPACITY} rows) up to the next pipeline breaker (aggregation, order by, limit),
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
  private sealed interface Step permits Filter, Project, Stage, Aggregation, OrderBy, Limit, TopN {}

  private record Filter(Expr predicate) implements Step {}

  private record Stage(ChunkStage stage) implements Step {}

  private record Project(List<NamedExpr> outputs) implements Step {}

  private record Aggregation(List<NamedExpr> keys, List<Aggregate> aggregates) implements Step {
    List<NamedExpr> resolvedKeys(Map<String, Expr> aliases) {
      return keys.stream().map(k -> new NamedExpr(Substitution.apply(k.expr(), aliases), k.name())).toList();
    }

    List<Aggregate> resolvedAggregates(Map<String, Expr> aliases) {
      return aggregates.stream().map(g -> new Aggregate(g.function(),
          g.argument() == null ? null : Substitution.apply(g.argument(), aliases), g.name())).toList();
    }
  }

  private record OrderBy(List<SortKey> keys) implements Step {}

  private record Limit(long rows) implements Step {}

  /** ORDER BY directly followed by LIMIT: one bounded top-N instead of a full sort and a copy. */
  private record TopN(List<SortKey> keys, long rows) implements Step {}

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
      while (i < steps.size() && isStreaming(steps.get(i))) {
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
      while (i < steps.size() && isStreaming(steps.get(i))) {
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
    return String.join(", ", keys.stream().map(k -> k.column() + (k.descending() ? " DESC" : " ASC")).toList());
  }

  private static boolean isStreaming(Step step) {
    return step instanceof Filter || step instanceof Project || step instanceof Stage;
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
    return steps.stream().allMatch(Plan::isStreaming);
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
    return context.run(() -> executePipelines(context));
  }

  /**
   * Runs the plan as a stream of standard Arrow batches allocated from {@code allocator} (the
   * host's), a {@link TableReader}: the reader's schema ({@link dev.memwall.core.arrow.StandardArrow#schema} of
   * {@link #schema()}) is known before anything runs and does not depend on the data or the
   * operators chosen. Nothing runs until the first {@link ArrowReader#loadNextBatch}. When the plan
   * ends in a stream of rows (filters, projections, join probes), each load runs the last pipeline
   * only until about {@value #STREAM_BATCH_ROWS} rows per thread are ready, so the result is never
   * held whole; a plan ending in an aggregation or a sort produces its result first and hands it
   * out batch by batch.
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
    Schema schema = schema();
    return TableReader.of(schema, new ControlledRounds(context, () -> rounds(context), resources), allocator);
  }

  /** Rows per thread a streamed result's round collects before the reader hands them out. */
  static final int STREAM_BATCH_ROWS = 64 * 1024;

  /**
   * The result in rounds: every pipeline but the last runs now; the last one, if it streams, runs a
   * round per {@link TableReader.Tables#next} call; one ending in a breaker runs whole at the first.
   */
  private TableReader.Tables rounds(ExecutionContext context) {
    int last = steps.size();
    while (last > 0 && isStreaming(steps.get(last - 1))) {
      last--;
    }
    if (last == steps.size() && !steps.isEmpty()) { // ends in a breaker
      Table[] result = {executePipelines(context)};
      return new TableReader.Tables() {
        @Override
        public Table next() {
          Table next = result[0];
          result[0] = null;
          return next;
        }

        @Override
        public void close() {
          if (result[0] != null) {
            result[0].close();
          }
        }
      };
    }
    Table head = last == 0 ? null : new Plan(source, steps.subList(0, last)).executePipelines(context);
    ScanSource input = head == null ? source : new ScanSource.OfTable(head);
    Pipeline chain = Pipeline.of(input.schema(), steps.subList(last, steps.size()));
    List<NamedExpr> columns = outputColumns(chain);
    Morsels morsels;
    try {
      morsels = input.morsels();
    } catch (RuntimeException e) {
      if (head != null) {
        head.close();
      }
      throw e;
    }
    return new TableReader.Tables() {
      private boolean done;

      @Override
      public Table next() {
        if (done) {
          return null;
        }
        List<Collector> collectors = runWorkers(morsels, chain, context,
            binder -> new Collector(binder, chain.outputSchema(), columns, context.memory().arrow(),
                TableBuilder.BATCH_ROWS), Collector::consume,
            collector -> collector.rows() >= STREAM_BATCH_ROWS);
        try {
          List<TableBuilder> parts = new ArrayList<>();
          long rows = 0;
          for (Collector collector : collectors) {
            parts.addAll(collector.parts());
            rows += collector.rows();
          }
          if (rows == 0) {
            done = true; // no worker found a morsel: the input is exhausted
          }
          return TableBuilder.concatenate(parts);
        } finally {
          collectors.forEach(Collector::close);
        }
      }

      @Override
      public void close() {
        try {
          morsels.close();
        } finally {
          if (head != null) {
            head.close();
          }
        }
      }
    };
  }

  private Table executePipelines(ExecutionContext context) {
    ScanSource input = source;
    boolean ownsInput = false;
    int i = 0;
    try {
      do {
        List<Step> pipeline = new ArrayList<>();
        while (i < steps.size() && isStreaming(steps.get(i))) {
          pipeline.add(steps.get(i++));
        }
        Step breaker = i < steps.size() ? steps.get(i++) : null;
        Table output = runPipeline(input, pipeline, breaker, context);
        if (ownsInput) {
          input.table().close();
        }
        input = new ScanSource.OfTable(output);
        ownsInput = true;
      } while (i < steps.size());
      return input.table();
    } catch (RuntimeException | Error e) {
      if (ownsInput) {
        input.table().close();
      }
      throw e;
    }
  }

  private static Table runPipeline(ScanSource input, List<Step> pipeline, Step breaker, ExecutionContext context) {
    Table table = input.table();
    if (table != null && pipeline.isEmpty() && breaker instanceof TopN topN) {
      return Sorter.sort(table, topN.keys(), topN.rows(), context.memory());
    }
    if (table != null && pipeline.isEmpty() && breaker instanceof OrderBy order) {
      return Sorter.sort(table, order.keys(), Long.MAX_VALUE, context.memory());
    }
    if (table != null && pipeline.isEmpty() && breaker instanceof Limit limit) {
      return Sorter.sort(table, List.of(), limit.rows(), context.memory());
    }
    Pipeline chain = Pipeline.of(input.schema(), pipeline);
    if (breaker instanceof OrderBy order) {
      return sort(input, chain, order.keys(), Long.MAX_VALUE, context);
    }
    if (breaker instanceof TopN topN) {
      return sort(input, chain, topN.keys(), topN.rows(), context);
    }
    Map<String, Expr> aliases = chain.aliases;
    Table result = switch (breaker) {
      case Aggregation a -> aggregate(input, chain, a.resolvedKeys(aliases), a.resolvedAggregates(aliases), context);
      case null, default -> collect(input, chain, context);
    };
    if (breaker instanceof OrderBy || breaker instanceof Limit || breaker instanceof TopN) {
      try (Table collected = result) {
        return runPipeline(new ScanSource.OfTable(collected), List.of(), breaker, context);
      }
    }
    return result;
  }

  private static Table aggregate(ScanSource input, Pipeline chain, List<NamedExpr> keys,
      List<Aggregate> aggregates, ExecutionContext context) {
    try (SpillingAggregation aggregation = new SpillingAggregation(context.memory(),
        context.workingMemory(SpillingAggregation.OPERATOR), context.spillSettings(), chain.outputSchema(), keys,
        aggregates, context.aggregateLayout(), context.threads(), input.maxRows(), context.machine().fastCacheBytes(),
        context.spillReports().orElse(null))) {
      return aggregation.finish(runWorkers(input, chain, context, aggregation::worker,
          SpillingAggregation.Worker::consume));
    }
  }

  /**
   * ORDER BY (and top-N) after a pipeline: its workers collect their rows for an {@link ExternalSort},
   * which sorts them in memory or, when they outgrow the working memory, spills sorted runs and
   * merges them.
   */
  private static Table sort(ScanSource input, Pipeline chain, List<SortKey> keys, long limit, ExecutionContext context) {
    List<NamedExpr> columns = outputColumns(chain);
    Schema schema = chain.outputSchema();
    Binder binder = new Binder(schema);
    List<ColumnType> types = columns.stream().map(c -> binder.typeOf(c.expr())).toList();
    AtomicInteger worker = new AtomicInteger();
    try (ExternalSort sort = new ExternalSort(context.memory(), context.workingMemory(ExternalSort.OPERATOR),
        context.spillSettings(), columns.stream().map(NamedExpr::name).toList(), types, keys, limit,
        context.threads(), context.spillReports().orElse(null))) {
      List<SortCollector> collectors = runWorkers(input, chain, context,
          b -> new SortCollector(b, schema, columns, sort, worker.getAndIncrement()), SortCollector::consume);
      Table result;
      try {
        result = sort.finish(collectors.stream().map(SortCollector::parts).toList());
      } catch (RuntimeException | Error e) {
        Closing.closeAll(collectors, e);
        throw e;
      }
      try {
        Closing.closeAll(collectors);
      } catch (RuntimeException e) {
        result.close();
        throw e;
      }
      return result;
    }
  }

  /** The columns a pipeline's last step outputs: its last projection's, or every column. */
  private static List<NamedExpr> outputColumns(Pipeline chain) {
    return chain.outputs != null ? chain.outputs
        : chain.outputSchema().getFields().stream().map(f -> new NamedExpr(Expr.col(f.getName()), f.getName())).toList();
  }

  private static Table collect(ScanSource input, Pipeline chain, ExecutionContext context) {
    List<NamedExpr> columns = outputColumns(chain);
    Schema schema = chain.outputSchema();
    List<Collector> collectors = runWorkers(input, chain, context,
        binder -> new Collector(binder, schema, columns, context.memory().arrow(), TableBuilder.BATCH_ROWS),
        Collector::consume);
    try {
      List<TableBuilder> parts = new ArrayList<>();
      collectors.forEach(collector -> parts.addAll(collector.parts()));
      return TableBuilder.concatenate(parts);
    } finally {
      collectors.forEach(Collector::close);
    }
  }

  /** What each worker does with the chunks that pass the filters. */
  private interface ChunkConsumer<S> {
    void consume(S state, Chunk chunk);
  }

  /**
   * The filters, projections and {@linkplain ChunkStage stages} of one pipeline, split at the stages
   * into segments: a segment's filters run over the chunks the scan or the stage before it emits,
   * then its stage (or, in the last segment, the pipeline's consumer) takes the rows that pass.
   * Projections define names (substituted into later expressions) until a stage with an output
   * schema of its own starts afresh from that schema's columns.
   */
  private static final class Pipeline {
    private final List<Segment> segments;
    /** Names the projections define at the end of the pipeline. */
    final Map<String, Expr> aliases;
    /** The last projection's outputs, or null: every column of the last segment. */
    final List<NamedExpr> outputs;

    /** Filters over chunks of {@code schema}, then {@code stage} (null in the last segment), which sees {@code columns}. */
    private record Segment(Schema schema, List<Expr> filters, ChunkStage stage, UnaryOperator<Expr> resolve,
        List<String> columns) {
      ChunkStage.Input input(Binder binder) {
        return new ChunkStage.Input(binder, resolve, columns);
      }
    }

    private Pipeline(List<Segment> segments, Map<String, Expr> aliases, List<NamedExpr> outputs) {
      this.segments = segments;
      this.aliases = aliases;
      this.outputs = outputs;
    }

    static Pipeline of(Schema source, List<Step> steps) {
      List<Segment> segments = new ArrayList<>();
      Schema schema = source;
      List<Expr> filters = new ArrayList<>();
      Map<String, Expr> aliases = new HashMap<>();
      List<NamedExpr> outputs = null;
      for (Step step : steps) {
        switch (step) {
          case Filter f -> filters.add(Substitution.apply(f.predicate(), aliases));
          case Project p -> {
            Map<String, Expr> next = new HashMap<>();
            List<NamedExpr> resolved = new ArrayList<>();
            for (NamedExpr output : p.outputs()) {
              Expr expr = Substitution.apply(output.expr(), aliases);
              next.put(output.name(), expr);
              resolved.add(new NamedExpr(expr, output.name()));
            }
            aliases = next;
            outputs = resolved;
          }
          case Stage s -> {
            Map<String, Expr> known = aliases;
            List<String> columns = outputs != null ? outputs.stream().map(NamedExpr::name).toList()
                : schema.getFields().stream().map(Field::getName).toList();
            Segment segment = new Segment(schema, filters, s.stage(), e -> Substitution.apply(e, known), columns);
            segments.add(segment);
            filters = new ArrayList<>();
            if (!s.stage().narrowsOnly()) {
              schema = s.stage().outputSchema(segment.input(new Binder(schema)));
              aliases = new HashMap<>();
              outputs = null;
            }
          }
          default -> throw new AssertionError(step);
        }
      }
      segments.add(new Segment(schema, filters, null, null, null));
      return new Pipeline(List.copyOf(segments), aliases, outputs);
    }

    /** Binds every segment's filters once, for their errors: one that does not fit its input throws. */
    void checkFilters() {
      for (Segment segment : segments) {
        Binder binder = new Binder(segment.schema());
        segment.filters().forEach(binder::bindFilter);
      }
    }

    /** The segment whose rows reach the pipeline's consumer. */
    Segment last() {
      return segments.getLast();
    }

    Schema outputSchema() {
      return last().schema();
    }

    /** One binder per segment, over the columns its chunks have. */
    Binder[] binders() {
      return segments.stream().map(segment -> new Binder(segment.schema())).toArray(Binder[]::new);
    }

    /**
     * One thread's chain from the scan's chunks to {@code sink}, bound with its {@code binders}; the
     * stage workers it opens are added to {@code opened}, for the caller to close.
     */
    Consumer<Chunk> connect(Binder[] binders, Consumer<Chunk> sink, ExecutionContext context,
        List<ChunkStage.Worker> opened) {
      Consumer<Chunk> next = sink;
      for (int i = segments.size() - 1; i >= 0; i--) {
        Segment segment = segments.get(i);
        FilterKernel[] filters = segment.filters().stream().map(binders[i]::bindFilter).toArray(FilterKernel[]::new);
        Consumer<Chunk> after = next;
        if (segment.stage() != null) {
          ChunkStage.Worker worker = segment.stage().open(segment.input(binders[i]), context);
          opened.add(worker);
          Consumer<Chunk> downstream = next;
          after = chunk -> worker.process(chunk, downstream);
        }
        Consumer<Chunk> passed = after;
        next = chunk -> {
          for (FilterKernel filter : filters) {
            if (chunk.selected() == 0) {
              return;
            }
            filter.filter(chunk);
          }
          if (chunk.selected() > 0) {
            passed.accept(chunk);
          }
        };
      }
      return next;
    }
  }

  /**
   * Runs {@code chain} then {@code consumer} over every row of {@code input} on the context's
   * threads, each with its own binders, stage workers and state (bound with the binder of the
   * chain's last segment); returns the states (the caller's to close). The stage workers are closed
   * before this returns.
   */
  private static <S> List<S> runWorkers(ScanSource input, Pipeline chain, ExecutionContext context,
      Function<Binder, S> newState, ChunkConsumer<S> consumer) {
    try (Morsels morsels = input.morsels()) {
      return runWorkers(morsels, chain, context, newState, consumer, state -> false);
    }
  }

  /**
   * As above over {@code morsels}, each worker stopping early once {@code full} says its state is
   * (between morsels): a round of a {@link #stream streamed} result.
   */
  private static <S> List<S> runWorkers(Morsels morsels, Pipeline chain, ExecutionContext context,
      Function<Binder, S> newState, ChunkConsumer<S> consumer, Predicate<S> full) {
    List<S> states = new ArrayList<>();
    List<ChunkStage.Worker> stageWorkers = new ArrayList<>();
    try {
      int workers = Math.max(1, Math.min(context.threads(), morsels.parallelism()));
      List<Runnable> tasks = new ArrayList<>();
      for (int w = 0; w < workers; w++) {
        Binder[] binders = chain.binders();
        S state = newState.apply(binders[binders.length - 1]);
        states.add(state);
        Consumer<Chunk> head = chain.connect(binders, chunk -> consumer.consume(state, chunk), context, stageWorkers);
        tasks.add(() -> drain(morsels, head, () -> full.test(state)));
      }
      Workers.runAll("memwall-worker", tasks);
    } catch (RuntimeException | Error e) {
      Closing.closeAll(stageWorkers, e);
      Closing.closeAll(states, e);
      throw e;
    }
    try {
      Closing.closeAll(stageWorkers);
    } catch (RuntimeException e) {
      Closing.closeAll(states, e);
      throw e;
    }
    return states;
  }

  /**
   * One worker's loop: claims morsels until none is left or {@code full} says to stop, each passed
   * chunk by chunk to {@code head}.
   */
  private static void drain(Morsels morsels, Consumer<Chunk> head, BooleanSupplier full) {
    Chunk chunk = new Chunk();
    ExecutionControl control = ExecutionControl.current();
    Morsels.Claim claim = new Morsels.Claim();
    while (!full.getAsBoolean() && morsels.claim(claim)) {
      try {
        int end = claim.start + claim.rows;
        for (int start = claim.start; start < end; start += Chunk.CAPACITY) {
          control.check(); // per chunk: a morsel through a join pipeline can take milliseconds
          chunk.reset(claim.batch, start, Math.min(Chunk.CAPACITY, end - start));
          head.accept(chunk);
        }
      } finally {
        morsels.release(claim);
      }
    }
  }

  @Override
  public String toString() {
    return "Plan[scan " + source.schema().getFields().stream().map(Field::getName).toList() + " -> " + steps + "]";
  }

}
