package dev.memwall.core.plan;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.AggregateLayout;

/**
 * What a plan runs with: the memory every operator allocates from, how many worker threads it may
 * use, and how grouped aggregations lay out their per-group state.
 *
 * @param memory owner of every buffer the plan allocates; the plan's result tables are allocated
 *     from it too and are the caller's to close
 * @param threads worker threads, at least 1
 * @param aggregateLayout DSM or NSM accumulators ({@link #DEFAULT_AGGREGATE_LAYOUT} unless chosen)
 */
public record ExecutionContext(EngineMemory memory, int threads, AggregateLayout aggregateLayout) {
  /**
   * COLUMNS: neither layout measured consistently faster on TPC-H Q1 and its many-group variants
   * (BENCHMARKS.md, "DSM versus NSM"), and columns need no padding.
   */
  public static final AggregateLayout DEFAULT_AGGREGATE_LAYOUT = AggregateLayout.COLUMNS;

  public ExecutionContext {
    if (memory == null) {
      throw new IllegalArgumentException("an execution context needs engine memory");
    }
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, got " + threads);
    }
    if (aggregateLayout == null) {
      throw new IllegalArgumentException("an execution context needs an aggregate layout");
    }
  }

  /** A context with the default aggregate layout. */
  public ExecutionContext(EngineMemory memory, int threads) {
    this(memory, threads, DEFAULT_AGGREGATE_LAYOUT);
  }

  /** A single-threaded context. */
  public static ExecutionContext singleThreaded(EngineMemory memory) {
    return new ExecutionContext(memory, 1);
  }

  /** This context with another aggregate layout. */
  public ExecutionContext withAggregateLayout(AggregateLayout layout) {
    return new ExecutionContext(memory, threads, layout);
  }
}
