package dev.memwall.bench.join;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Table;
import dev.memwall.join.Join;

/**
 * What the whole-join benchmarks hold alike: the memory, the two input tables and the join over
 * them, which each benchmark's trial setup builds its own way, and their release after the trial.
 *
 * <p>Ownership: the benchmark state owns the tables and the memory once its setup has made them;
 * {@link #closeInputs} closes them (the join holds nothing between runs). Thread safety: a JMH
 * benchmark-scoped state, set up and torn down by one thread. Bad input: none; closing before the
 * setup ran fails with {@link NullPointerException}.
 */
public abstract class JoinFixture {
  protected EngineMemory memory;
  protected Table left;
  protected Table right;
  protected Join join;

  /** Closes both input tables, then the memory they were charged to. */
  protected final void closeInputs() {
    left.close();
    right.close();
    memory.close();
  }
}
