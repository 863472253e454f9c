package dev.memwall.core.plan;

import dev.memwall.core.memory.EngineMemory;

/**
 * What a plan runs with: the memory every operator allocates from and how many worker threads
 * it may use.
 *
 * @param memory owner of every buffer the plan allocates; the plan's result tables are allocated
 *     from it too and are the caller's to close
 * @param threads worker threads, at least 1
 */
public record ExecutionContext(EngineMemory memory, int threads) {
  public ExecutionContext {
    if (memory == null) {
      throw new IllegalArgumentException("an execution context needs engine memory");
    }
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, got " + threads);
    }
  }

  /** A single-threaded context. */
  public static ExecutionContext singleThreaded(EngineMemory memory) {
    return new ExecutionContext(memory, 1);
  }
}
