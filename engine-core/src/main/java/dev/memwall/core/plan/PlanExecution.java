package dev.memwall.core.plan;

import dev.memwall.core.Closing;
import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.frequent.SummarySizing;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.ExternalSort;
import dev.memwall.core.operator.ResultParts;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.operator.Sorter;
import dev.memwall.core.operator.SpillingAggregation;
import dev.memwall.core.plan.Step.Aggregation;
import dev.memwall.core.plan.Step.FrequentValues;
import dev.memwall.core.plan.Step.Limit;
import dev.memwall.core.plan.Step.OrderBy;
import dev.memwall.core.plan.Step.TopN;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * One execution of a {@link Plan}'s steps over its source: the steps are cut into pipelines at the
 * breakers (aggregation, order by, top-N, limit, frequent values); each pipeline runs on the context's workers
 * ({@link PipelineWorkers}) and its breaker materializes the table the next pipeline scans. A
 * pipeline without a breaker collects its rows into a table.
 *
 * <p>Ownership: the source is only read (a streamed source's batches are closed as they are
 * consumed, by its morsels). Every intermediate table is allocated from the context's memory, owned
 * by this execution, and closed as soon as the next pipeline has consumed it, or when a later
 * pipeline fails; the result table, or the tables a {@link #rounds round} returns, are the caller's
 * to close. What a failing pipeline had allocated (worker states, stage workers, operators' memory)
 * is freed before its exception leaves.
 *
 * <p>Threads and cancellation: {@link #run} and {@link #rounds} are called on one thread, under the
 * context's control ({@link ExecutionContext#run}, or {@link ControlledRounds} for a streamed
 * result); each pipeline's workers check that control before every chunk, so cancellation, a passed
 * timeout or an interrupt surfaces as {@link dev.memwall.core.concurrent.QueryCancelledException}.
 * An instance is for one execution; the plan's validity ({@link Plan#schema}) is checked by the
 * caller first.
 */
final class PlanExecution {
  private final ScanSource source;
  private final List<Step> steps;
  private final ExecutionContext context;

  PlanExecution(ScanSource source, List<Step> steps, ExecutionContext context) {
    this.source = source;
    this.steps = steps;
    this.context = context;
  }

  /**
   * The result in rounds: every pipeline but the last runs now; the last one, if it streams, runs a
   * round per {@link TableReader.Tables#next} call. Where the last breaker is a sort or an aggregation,
   * it hands out a part of its result per call where it spilled ({@link #inParts}), and the streaming
   * steps after it (a projection, a filter) run over each part. A plan ending in another breaker runs
   * whole at the first call.
   */
  TableReader.Tables rounds() {
    int last = steps.size();
    while (last > 0 && Step.isStreaming(steps.get(last - 1))) {
      last--;
    }
    if (last > 0 && (steps.get(last - 1) instanceof OrderBy || steps.get(last - 1) instanceof TopN
        || steps.get(last - 1) instanceof Aggregation)) {
      TableReader.Tables parts = inParts(last);
      return last == steps.size() ? parts
          : throughSteps(parts, steps.subList(last, steps.size()), !(steps.get(last - 1) instanceof Aggregation));
    }
    if (last == steps.size() && !steps.isEmpty()) { // ends in another breaker
      return TableReader.Tables.of(run());
    }
    Table head = last == 0 ? null : new PlanExecution(source, steps.subList(0, last), context).run();
    ScanSource input = head == null ? source : new ScanSource.OfTable(head, headInOrder(last));
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
        List<Collector> collectors = PipelineWorkers.run(morsels, chain, context,
            binder -> new Collector(binder, columns, context.memory().arrow(), TableBuilder.BATCH_ROWS),
            Collector::consume,
            collector -> collector.rows() >= Plan.STREAM_BATCH_ROWS);
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

  /**
   * The rounds of the first {@code end} steps, which end in an ORDER BY, a top-N or an aggregation: the
   * pipelines before its pipeline run now, then that pipeline's workers feed the operator, and an
   * operator that spilled hands out its result a part per round ({@link ExternalSort#finishInParts},
   * {@link SpillingAggregation#finishInParts}), so the result is never held whole. A sort of a table
   * already in memory, with no step between, sorts it in memory, in one round.
   */
  private TableReader.Tables inParts(int end) {
    int first = end - 1;
    while (first > 0 && Step.isStreaming(steps.get(first - 1))) {
      first--;
    }
    Step breaker = steps.get(end - 1);
    Table head = first == 0 ? null : new PlanExecution(source, steps.subList(0, first), context).run();
    ResultParts parts;
    try {
      ScanSource input = head == null ? source : new ScanSource.OfTable(head, headInOrder(first));
      if (input.table() != null && first == end - 1 && !(breaker instanceof Aggregation)) {
        return TableReader.Tables.of(runPipeline(input, List.of(), breaker, context));
      }
      Pipeline chain = Pipeline.of(input.schema(), steps.subList(first, end - 1));
      parts = switch (breaker) {
        case TopN topN -> sortInParts(input, chain, topN.keys(), topN.rows(), context);
        case OrderBy order -> sortInParts(input, chain, order.keys(), Long.MAX_VALUE, context);
        case Aggregation a -> aggregateInParts(input, chain, a.resolvedKeys(chain.aliases),
            a.resolvedAggregates(chain.aliases), context);
        default -> throw new IllegalStateException("no parts for " + breaker);
      };
    } finally {
      if (head != null) {
        head.close();
      }
    }
    return new TableReader.Tables() {
      @Override
      public Table next() {
        return parts.next();
      }

      @Override
      public void close() {
        parts.close();
      }
    };
  }

  /**
   * {@code parts} with the streaming {@code tail} (projections, filters) run over each, read by one
   * worker where the parts are {@code inOrder}, so that their order holds.
   */
  private TableReader.Tables throughSteps(TableReader.Tables parts, List<Step> tail, boolean inOrder) {
    return new TableReader.Tables() {
      @Override
      public Table next() {
        try (Table part = parts.next()) {
          return part == null ? null : new PlanExecution(new ScanSource.OfTable(part, inOrder), tail, context).run();
        }
      }

      @Override
      public void close() {
        parts.close();
      }
    };
  }

  /** Runs every pipeline in turn and returns the last one's table, the caller's to close. */
  Table run() {
    ScanSource input = source;
    boolean ownsInput = false;
    boolean inOrder = false;
    int i = 0;
    try {
      do {
        List<Step> pipeline = new ArrayList<>();
        while (i < steps.size() && Step.isStreaming(steps.get(i))) {
          pipeline.add(steps.get(i++));
        }
        Step breaker = i < steps.size() ? steps.get(i++) : null;
        Table output = runPipeline(input, pipeline, breaker, context);
        if (ownsInput) {
          input.table().close();
        }
        inOrder = keepsOrder(breaker, inOrder);
        input = new ScanSource.OfTable(output, inOrder);
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

  /** Whether the table that the first {@code end} steps make is in the result's order ({@link #keepsOrder}). */
  private boolean headInOrder(int end) {
    boolean inOrder = false;
    for (Step step : steps.subList(0, end)) {
      if (!Step.isStreaming(step)) {
        inOrder = keepsOrder(step, inOrder);
      }
    }
    return inOrder;
  }

  /**
   * Whether the rows of {@code breaker}'s output (null: the pipeline's collected rows) are in the
   * result's order, given whether its input's rows were: an ORDER BY's and a top-N's are, and a limit
   * or a collection keeps its input's order, since a table in order is read by one worker
   * ({@link ScanSource.OfTable#inOrder}).
   */
  private static boolean keepsOrder(Step breaker, boolean inputInOrder) {
    return breaker instanceof OrderBy || breaker instanceof TopN
        || inputInOrder && (breaker == null || breaker instanceof Limit);
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
      case FrequentValues f -> frequent(input, chain, f.resolved(aliases), context);
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
    try (SpillingAggregation aggregation = newAggregation(input, chain, keys, aggregates, context)) {
      return aggregation.finish(PipelineWorkers.run(input, chain, context, aggregation::worker,
          SpillingAggregation.Worker::consume));
    }
  }

  /** As {@link #aggregate}, with a result that spilled aggregated a round of partitions per part; the parts own the operator. */
  private static ResultParts aggregateInParts(ScanSource input, Pipeline chain, List<NamedExpr> keys,
      List<Aggregate> aggregates, ExecutionContext context) {
    SpillingAggregation aggregation = newAggregation(input, chain, keys, aggregates, context);
    try {
      return aggregation.finishInParts(PipelineWorkers.run(input, chain, context, aggregation::worker,
          SpillingAggregation.Worker::consume));
    } catch (RuntimeException | Error e) {
      Closing.closeAll(List.of(aggregation), e); // the parts did not take it over
      throw e;
    }
  }

  private static SpillingAggregation newAggregation(ScanSource input, Pipeline chain, List<NamedExpr> keys,
      List<Aggregate> aggregates, ExecutionContext context) {
    return new SpillingAggregation(context.memory(), context.workingMemory(SpillingAggregation.OPERATOR),
        context.spillSettings(), chain.outputSchema(), keys, aggregates, context.aggregateLayout(), context.threads(),
        input.maxRows(), context.machine().fastCacheBytes(), context.spillReports().orElse(null));
  }

  /**
   * Frequent values after a pipeline: a Space-Saving summary per worker over the rows that reach it,
   * merged into the step's rows.
   */
  private static Table frequent(ScanSource input, Pipeline chain, FrequentValues step, ExecutionContext context) {
    List<ColumnType> types = FrequentCollector.resultTypes(new Binder(chain.outputSchema()), step);
    SummarySizing sizing = step.sizing(context.machine());
    List<FrequentCollector> workers = PipelineWorkers.run(input, chain, context,
        binder -> new FrequentCollector(binder, step, sizing, context.memory()), FrequentCollector::consume);
    try {
      return FrequentCollector.answer(workers, step, types, context.memory());
    } finally {
      Closing.closeAll(workers);
    }
  }

  /**
   * ORDER BY (and top-N) after a pipeline: its workers collect their rows for an {@link ExternalSort},
   * which sorts them in memory or, when they outgrow the working memory, spills sorted runs and
   * merges them.
   */
  private static Table sort(ScanSource input, Pipeline chain, List<SortKey> keys, long limit, ExecutionContext context) {
    try (ExternalSort sort = newSort(chain, keys, limit, context)) {
      return collectAndFinish(input, chain, sort, context, sort::finish);
    }
  }

  /**
   * As {@link #sort}, with a spilled result merged a part at a time as the parts are asked for
   * ({@link ExternalSort#finishInParts}); the output owns the operator.
   */
  private static ResultParts sortInParts(ScanSource input, Pipeline chain, List<SortKey> keys, long limit,
      ExecutionContext context) {
    ExternalSort sort = newSort(chain, keys, limit, context);
    try {
      return collectAndFinish(input, chain, sort, context, sort::finishInParts);
    } catch (RuntimeException | Error e) {
      Closing.closeAll(List.of(sort), e); // the output did not take it over
      throw e;
    }
  }

  private static ExternalSort newSort(Pipeline chain, List<SortKey> keys, long limit, ExecutionContext context) {
    Binder binder = new Binder(chain.outputSchema());
    List<NamedExpr> columns = outputColumns(chain);
    return new ExternalSort(context.memory(), context.workingMemory(ExternalSort.OPERATOR), context.spillSettings(),
        columns.stream().map(NamedExpr::name).toList(), columns.stream().map(c -> binder.typeOf(c.expr())).toList(),
        keys, limit, context.threads(), context.spillReports().orElse(null));
  }

  /**
   * Runs the pipeline, its workers collecting their rows for {@code sort}, then {@code finish}es the
   * sort with the rows they still hold, and closes the workers' collectors (the result's to close if
   * that fails).
   */
  private static <T extends AutoCloseable> T collectAndFinish(ScanSource input, Pipeline chain, ExternalSort sort,
      ExecutionContext context, Function<List<List<TableBuilder>>, T> finish) {
    List<NamedExpr> columns = outputColumns(chain);
    AtomicInteger worker = new AtomicInteger();
    List<SortCollector> collectors = PipelineWorkers.run(input, chain, context,
        b -> new SortCollector(b, columns, sort, worker.getAndIncrement()), SortCollector::consume);
    T result;
    try {
      result = finish.apply(collectors.stream().map(SortCollector::parts).toList());
    } catch (RuntimeException | Error e) {
      Closing.closeAll(collectors, e);
      throw e;
    }
    try {
      Closing.closeAll(collectors);
    } catch (RuntimeException e) {
      Closing.closeAll(List.of(result), e);
      throw e;
    }
    return result;
  }

  /** The columns a pipeline's last step outputs: its last projection's, or every column. */
  private static List<NamedExpr> outputColumns(Pipeline chain) {
    return chain.outputs != null ? chain.outputs
        : chain.outputSchema().getFields().stream().map(f -> new NamedExpr(Expr.col(f.getName()), f.getName())).toList();
  }

  private static Table collect(ScanSource input, Pipeline chain, ExecutionContext context) {
    List<NamedExpr> columns = outputColumns(chain);
    List<Collector> collectors = PipelineWorkers.run(input, chain, context,
        binder -> new Collector(binder, columns, context.memory().arrow(), TableBuilder.BATCH_ROWS),
        Collector::consume);
    try {
      List<TableBuilder> parts = new ArrayList<>();
      collectors.forEach(collector -> parts.addAll(collector.parts()));
      return TableBuilder.concatenate(parts);
    } finally {
      collectors.forEach(Collector::close);
    }
  }
}
