package dev.memwall.core.plan;

import dev.memwall.core.Closing;
import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.concurrent.Workers;
import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Runs one {@link Pipeline} on an execution's workers: each worker gets its own binders, stage
 * workers and consumer state, and claims morsels of the input until none is left, passing them
 * chunk by chunk ({@link Chunk#CAPACITY} rows) through the pipeline to its state.
 *
 * <p>Threads: the workers run through {@link Workers#runAll}, the first on the calling thread, with
 * the query's {@link ExecutionControl} bound; a call returns once every worker has stopped.
 * Cancellation: each worker checks the control before every chunk, so a cancelled token, a passed
 * timeout or an interrupt stops the pipeline within a chunk. Ownership: the stage workers are closed
 * before a call returns; the states are returned to the caller to close, and are closed here
 * instead when the call fails. Only {@link #drain} loops over rows, so the orchestration methods
 * stay small for the JIT.
 */
final class PipelineWorkers {
  private PipelineWorkers() {}

  /** What each worker does with the chunks that pass the filters. */
  interface ChunkConsumer<S> {
    void consume(S state, Chunk chunk);
  }

  /**
   * Runs {@code chain} then {@code consumer} over every row of {@code input} on the context's
   * threads, each with its own binders, stage workers and state (bound with the binder of the
   * chain's last segment); returns the states (the caller's to close). The stage workers are closed
   * before this returns.
   */
  static <S> List<S> run(ScanSource input, Pipeline chain, ExecutionContext context,
      Function<Binder, S> newState, ChunkConsumer<S> consumer) {
    try (Morsels morsels = input.morsels()) {
      return run(morsels, chain, context, newState, consumer, state -> false);
    }
  }

  /**
   * As above over {@code morsels}, each worker stopping early once {@code full} says its state is
   * (between morsels): a round of a {@linkplain Plan#stream streamed} result.
   */
  static <S> List<S> run(Morsels morsels, Pipeline chain, ExecutionContext context,
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
}
