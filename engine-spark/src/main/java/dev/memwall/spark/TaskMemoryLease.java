package dev.memwall.spark;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.MemoryBudget;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.TaskMemoryManager;

/**
 * The execution memory a Spark task grants memwall, as a {@link MemoryConsumer} of that task: the
 * {@link MemoryBudget.Growth} behind memwall's {@linkplain MemoryBudget#growing growing} budget for the task.
 *
 * <p>Growth: the budget starts empty; when a reservation does not fit, the lease asks Spark for the rest,
 * rounded up to a step that doubles with what it holds (at least {@value #FIRST_STEP} bytes), so that a
 * task holds what its operators use rather than a share taken up front, and asks Spark a few times, not
 * per allocation. Spark may make other consumers of the task spill to grant it, and may grant less; it
 * never grants beyond the lease's {@code maxBytes} ({@link MemwallSettings#TASK_MEMORY}). The budget's
 * {@linkplain MemoryBudget#availableBytes room}, which operators size their shares from, counts what the
 * lease may still grow by ({@link #growableBytes}: the limit, or Spark's estimate of a task's share if less).
 * A reservation that still does not fit is refused with memwall's {@link BudgetExceededException} naming the
 * budget, and the operator works within what it has (a partial aggregation emits its groups early) or fails
 * by name.
 *
 * <p>Spill: when another consumer of the task needs memory, Spark calls {@link #spill}. The lease gives
 * back the part of its grant that memwall's budget does not hold, by {@linkplain MemoryBudget#shrink
 * shrinking} the budget first, so that Spark's accounting stays an upper bound of what memwall holds; if
 * that is not enough, it asks its {@link Spillable} to free more (the memory memwall keeps for reuse, then a
 * result being read, written to disk), and gives back what that freed. This is the contract of Spark's own
 * operators: a sort or a hash map spills at another consumer's request only while its result is being read,
 * and spills itself, as memwall's operators do, when its own request is refused while it builds.
 *
 * <p>Memory mode: Spark's Tungsten mode of the task ({@code OFF_HEAP} when
 * {@code spark.memory.offHeap.enabled} is set, as memwall's memory is; otherwise the on-heap execution
 * pool, which then stands in for memwall's off-heap memory so that Spark's per-task limits still
 * count it).
 *
 * <p>Thread safety: {@link #spill} may be called from another thread of the task; the methods
 * synchronize. Ownership: {@link #release} gives back everything the lease holds; it is idempotent.
 */
final class TaskMemoryLease extends MemoryConsumer implements MemoryBudget.Growth {
  /** Spark's pages that make the lease's estimate of a task's share of the pool ({@link #growableBytes}). */
  static final long PAGES_PER_TASK = 8;
  /** The least the lease asks Spark for at a time. */
  static final long FIRST_STEP = 4L << 20;

  /** What memwall can free when Spark asks for memory back. */
  @FunctionalInterface
  interface Spillable {
    /**
     * Frees about {@code bytes} of the lease's budget if it can right now (memory kept for reuse, what it
     * holds written to disk, on the thread Spark asks on); returns the bytes freed. Called with the lease's
     * lock held; must not reserve memory.
     */
    long spill(long bytes);
  }

  private final long maxBytes;
  private MemoryBudget budget;
  private Spillable spillable;

  /** A lease of at most {@code maxBytes} from the task of {@code manager}. */
  TaskMemoryLease(TaskMemoryManager manager, long maxBytes) {
    super(manager, manager.pageSizeBytes(), manager.getTungstenMemoryMode());
    if (maxBytes < 0) {
      throw new IllegalArgumentException("a lease needs a limit >= 0, got " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /** The budget this lease backs, named {@code name}; made once. */
  synchronized MemoryBudget budget(String name) {
    if (budget != null) {
      throw new IllegalStateException("the lease already backs " + budget.name());
    }
    budget = MemoryBudget.growing(name, 0, this);
    return budget;
  }

  /** Sets what {@link #spill} asks to free when the unheld grant is not enough (null: nothing). */
  synchronized void spillable(Spillable held) {
    spillable = held;
  }

  /**
   * Asks Spark for at least {@code bytes} (a step more where the limit allows); returns what Spark
   * granted. Nothing is asked when {@code bytes} would pass the lease's limit.
   */
  @Override
  public synchronized long grant(long bytes) {
    long held = getUsed();
    long room = maxBytes - held;
    if (bytes > room) {
      return 0;
    }
    return acquireMemory(Math.min(room, Math.max(bytes, Math.max(FIRST_STEP, held))));
  }

  /**
   * What Spark may still grant, as far as the lease can tell: its limit, or Spark's own estimate of a task's
   * share if less ({@value #PAGES_PER_TASK} of Spark's pages), less what it holds. Spark sizes a page as the
   * execution pool over the executor's cores over 16, rounded up to a power of two (between 1 and 64 MiB),
   * so {@value #PAGES_PER_TASK} pages are at least half a task's share and at most all of it (unless the
   * pool is so small that pages stay at 1 MiB). Operators size their runs, batches and merges from this room,
   * so it must not promise what Spark will not grant when many tasks share the pool: the limit alone would.
   */
  @Override
  public synchronized long growableBytes() {
    return Math.max(0, Math.min(maxBytes, PAGES_PER_TASK * taskMemoryManager.pageSizeBytes()) - getUsed());
  }

  /**
   * Gives back up to {@code size} bytes of the grant: first what memwall's budget does not hold, then what
   * the {@link Spillable} frees (memory kept for reuse, a result written to disk); 0 when the lease itself
   * asked for memory, or when memwall holds all of it and can free nothing now.
   */
  @Override
  public synchronized long spill(long size, MemoryConsumer trigger) {
    if (trigger == this || budget == null) {
      return 0;
    }
    long give = budget.shrink(Math.min(size, getUsed()));
    if (give < size && spillable != null && spillable.spill(size - give) > 0) {
      give += budget.shrink(Math.min(size - give, getUsed() - give));
    }
    if (give > 0) {
      freeMemory(give);
    }
    return give;
  }

  /** Returns the whole grant to Spark. Idempotent. */
  synchronized void release() {
    long used = getUsed();
    if (used > 0) {
      freeMemory(used);
    }
  }

  @Override
  public synchronized String toString() {
    return "TaskMemoryLease[" + getUsed() + " of at most " + maxBytes + " bytes granted by Spark (" + getMode() + ")]";
  }
}
