package dev.memwall.core.plan;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.FilterKernel;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.expr.Substitution;
import dev.memwall.core.plan.Step.Filter;
import dev.memwall.core.plan.Step.Project;
import dev.memwall.core.plan.Step.Stage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The filters, projections and {@linkplain ChunkStage stages} of one pipeline, split at the stages
 * into segments: a segment's filters run over the chunks the scan or the stage before it emits,
 * then its stage (or, in the last segment, the pipeline's consumer) takes the rows that pass.
 * Projections define names (substituted into later expressions) until a stage with an output
 * schema of its own starts afresh from that schema's columns.
 *
 * <p>Thread safety: immutable once built; {@link #connect} builds one worker's chain with that
 * worker's binders, so one pipeline serves every worker of an execution.
 */
final class Pipeline {
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
