package dev.memwall.core.plan;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A streaming step of a {@link Plan} pipeline besides filters and projections: it passes each chunk
 * on as zero or more chunks without breaking the pipeline. A hash join's probe against a table built
 * beforehand is the one memwall has (engine-join): the probe side then flows from the scan through
 * its filters, the probe and the next steps chunk by chunk, and is never materialized.
 *
 * <p>A stage either {@linkplain #narrowsOnly only narrows} the selection of the chunks it receives
 * (a semi or anti join: the next steps see the same columns and names), or emits chunks over batches
 * of its own with {@link #outputSchema} (an inner or outer join: its output columns).
 *
 * <p>Expressions a stage evaluates over its input name columns as the steps before it defined them;
 * its {@link Input} resolves such names to expressions over the chunks' columns and binds them.
 *
 * <p>Thread safety: the stage itself is shared by every worker of a pipeline and must be safe for
 * concurrent {@link #open}; each worker is used by one thread.
 */
public interface ChunkStage {
  /** Whether the stage emits the chunks it receives, with a narrower selection, and nothing else. */
  boolean narrowsOnly();

  /**
   * The names of the columns the stage emits, given the names the steps before it define (those
   * names themselves when it {@linkplain #narrowsOnly narrows only}); the same as
   * {@link #outputSchema}'s, known before anything is bound.
   */
  List<String> outputColumns(List<String> input);

  /**
   * The schema of the chunks the stage emits (unused when it {@linkplain #narrowsOnly narrows only}).
   *
   * @throws IllegalArgumentException when the stage does not fit its input (a missing column, a type
   *     it cannot handle), naming the problem
   */
  Schema outputSchema(Input input);

  /** A worker for one thread, its expressions bound with {@code input}'s binder, that thread's own. */
  Worker open(Input input, ExecutionContext context);

  /**
   * A stage that only narrows the selection of the chunks it receives (a marking semi or anti join, a
   * capture of the selected rows): it emits its input's columns under their names and has no schema
   * of its own; an implementation only opens workers.
   */
  interface Narrowing extends ChunkStage {
    @Override
    default boolean narrowsOnly() {
      return true;
    }

    @Override
    default List<String> outputColumns(List<String> input) {
      return input;
    }

    @Override
    default Schema outputSchema(Input input) {
      throw new UnsupportedOperationException("a narrowing stage has its input's schema");
    }
  }

  /** One line for {@link Plan#explain}: what the stage does, with what it already holds (a join's build side). */
  default String describe() {
    return "stage " + getClass().getSimpleName();
  }

  /**
   * What a stage reads.
   *
   * @param binder binds expressions over the columns of the chunks the stage receives (one per thread)
   * @param resolve replaces names that projections before the stage defined by their expressions
   * @param columns the names the steps before the stage define, in order: a projection's outputs, or
   *     the chunks' columns
   */
  record Input(Binder binder, UnaryOperator<Expr> resolve, List<String> columns) {
    /** {@code expr} with projected names replaced, ready for {@link #binder}. */
    public Expr resolved(Expr expr) {
      return resolve.apply(expr);
    }
  }

  /** What one thread of a pipeline runs; it owns what it allocates until {@link #close}. */
  interface Worker extends AutoCloseable {
    /**
     * Processes the selected rows of {@code chunk} and hands every chunk it emits to {@code next}
     * before returning; an emitted chunk is valid only during that call.
     */
    void process(Chunk chunk, Consumer<Chunk> next);

    @Override
    void close();
  }
}
