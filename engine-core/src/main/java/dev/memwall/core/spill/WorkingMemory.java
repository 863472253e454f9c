package dev.memwall.core.spill;

import dev.memwall.core.memory.EngineMemory;

/**
 * The memory one operator holds its working state in (hash tables, accumulators, sort runs),
 * apart from the tables it returns: either a {@linkplain EngineMemory#child child} of the query's
 * memory, held to the query's working-memory limit and closed (leak-checked) with this, or, where no
 * limit or report asks for one, the query's memory itself, which closing this leaves alone.
 *
 * <p>Ownership: the operator that opened it closes it once every buffer it allocated from
 * {@link #memory()} is freed. Thread safety: {@link #memory()} is shared by the operator's workers.
 */
public final class WorkingMemory implements AutoCloseable {
  private final EngineMemory memory;
  private final boolean owned;

  private WorkingMemory(EngineMemory memory, boolean owned) {
    this.memory = memory;
    this.owned = owned;
  }

  /** Working memory that is a child of some memory: closed with this. */
  public static WorkingMemory owned(EngineMemory child) {
    return new WorkingMemory(child, true);
  }

  /** Working memory that is the query's memory itself: not closed with this. */
  public static WorkingMemory shared(EngineMemory memory) {
    return new WorkingMemory(memory, false);
  }

  public EngineMemory memory() {
    return memory;
  }

  /** The most this operator's working memory held at once, or -1 where it is shared and was not counted apart. */
  public long peakBytes() {
    return owned ? memory.budget().peakBytes() : -1;
  }

  @Override
  public void close() {
    if (owned) {
      memory.close();
    }
  }
}
