package dev.memwall.join.inspector;

import dev.memwall.core.concurrent.Workers;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.algorithm.JoinInput;
import dev.memwall.join.algorithm.JoinOutput;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * What every phase of one inspector join run shares: the input, the memory it charges, the threads
 * with one output each, and what the run owns until it ends. It exists so that each phase object
 * holds only its own state, and so that one place frees everything however the run ends.
 *
 * <p>Ownership: whatever is passed to {@link #own} or allocated by {@link #allocate} is charged to
 * the input's {@link EngineMemory} and closed by {@link #close}, last first, unless {@link #free}
 * freed it earlier. Thread 0 writes into the caller's output; the others' outputs are forked by
 * {@link #forkOutputs}, absorbed into it by {@link #absorbOutputs} and closed by {@link #close}.
 *
 * <p>Thread safety: {@link #parallel} starts the run's threads and returns when all have finished;
 * a task may call {@link #out} for its own thread only. Everything else is for the thread that runs
 * the join, outside parallel sections. The thread count is the validated
 * {@link InspectorJoin.Settings#threads()}.
 */
final class RunContext implements AutoCloseable {
  private final JoinInput input;
  private final EngineMemory memory;
  private final int threads;
  private final JoinOutput[] outs;
  private final List<AutoCloseable> owned = new ArrayList<>();

  RunContext(JoinInput input, JoinOutput out, int threads) {
    this.input = input;
    this.memory = input.memory();
    this.threads = threads;
    this.outs = new JoinOutput[threads];
    outs[0] = out;
  }

  /** Gives every thread but thread 0 an output of its own, forked from the caller's. */
  void forkOutputs() {
    for (int t = 1; t < threads; t++) {
      outs[t] = outs[0].fork();
    }
  }

  /** Flushes the forked outputs into the caller's, in thread order. */
  void absorbOutputs() {
    for (int t = 1; t < threads; t++) {
      outs[t].flush();
      outs[0].absorb(outs[t]);
    }
  }

  JoinInput input() {
    return input;
  }

  EngineMemory memory() {
    return memory;
  }

  JoinType type() {
    return input.type();
  }

  int threads() {
    return threads;
  }

  /** Thread {@code t}'s output. */
  JoinOutput out(int t) {
    return outs[t];
  }

  /** Takes {@code resource} into the run's ownership and returns it. */
  <T extends AutoCloseable> T own(T resource) {
    owned.add(resource);
    return resource;
  }

  /** Closes {@code resource}, which the run owned, before the run ends. */
  void free(AutoCloseable resource) {
    owned.remove(resource);
    try {
      resource.close();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** At least one byte of off-heap memory, owned by the run. */
  MemorySegment allocate(long bytes, Placement placement) {
    OffHeapBuffer buffer = memory.allocate(Math.max(1, bytes), placement);
    owned.add(buffer);
    return buffer.segment();
  }

  /** Runs {@code task} for every thread index, on that many threads. */
  void parallel(IntConsumer task) {
    List<Runnable> tasks = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      tasks.add(() -> task.accept(thread));
    }
    Workers.runAll("memwall-inspector", tasks);
  }

  /**
   * Closes everything the run still owns, last first, and the forked outputs; rethrows the first
   * failure after trying them all.
   */
  @Override
  public void close() {
    RuntimeException failure = null;
    for (int i = owned.size() - 1; i >= 0; i--) {
      try {
        owned.get(i).close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
      }
    }
    owned.clear();
    for (int t = 1; t < threads; t++) {
      if (outs[t] != null) {
        outs[t].close();
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
