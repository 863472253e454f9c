package dev.memwall.spark;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.MemoryBudget;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.TaskMemoryManager;

/**
 * The execution memory a Spark task grants memwall, as a {@link MemoryConsumer} of that task: what
 * memwall's {@link MemoryBudget} for the task may hold.
 *
 * <p>Why a lease and not a callback: a {@link MemoryBudget} has a fixed limit and calls nobody when
 * memwall reserves memory, so it cannot ask Spark for each allocation. The lease asks Spark once, when
 * the task's memwall work starts, for the configured amount ({@link MemwallSettings#TASK_MEMORY}); Spark
 * may make other consumers of the task (or other tasks) spill to grant it, and may grant less. The
 * budget's limit is what Spark granted, so memwall never holds memory Spark has not accounted for, and
 * an operator that needs more works within it (a partial aggregation emits its groups early) or fails with
 * memwall's {@link BudgetExceededException} naming the budget.
 *
 * <p>Spill: when another consumer needs memory, Spark calls {@link #spill}; memwall's operators here
 * cannot spill their state on request yet, so the lease gives back the part of the grant memwall is
 * not using (the budget's headroom). It does so by reserving that headroom in the budget itself, as
 * ballast, before freeing it to Spark: from then on memwall's budget can no longer use it, and Spark's
 * accounting stays an upper bound of what memwall holds.
 *
 * <p>Memory mode: Spark's Tungsten mode of the task ({@code OFF_HEAP} when
 * {@code spark.memory.offHeap.enabled} is set, as memwall's memory is; otherwise the on-heap execution
 * pool, which then stands in for memwall's off-heap memory so that Spark's per-task limits still
 * count it).
 *
 * <p>Thread safety: {@link #spill} may be called from another task's thread; the methods synchronize.
 * Ownership: {@link #release} gives back everything the lease holds; it is idempotent.
 */
final class TaskMemoryLease extends MemoryConsumer {
  private MemoryBudget budget;
  private long ballast;

  TaskMemoryLease(TaskMemoryManager manager) {
    super(manager, manager.pageSizeBytes(), manager.getTungstenMemoryMode());
  }

  /** Asks Spark for {@code bytes}; returns what it granted (possibly less, possibly 0). */
  synchronized long acquire(long bytes) {
    return bytes <= 0 ? 0 : acquireMemory(bytes);
  }

  /** The budget whose unused headroom {@link #spill} may give back to Spark. */
  synchronized void attach(MemoryBudget taskBudget) {
    this.budget = taskBudget;
  }

  /**
   * Gives back up to {@code size} bytes of the grant that memwall's budget is not using; 0 when the
   * lease itself asked for memory, or when memwall uses all of it.
   */
  @Override
  public synchronized long spill(long size, MemoryConsumer trigger) {
    if (trigger == this || budget == null) {
      return 0;
    }
    long give = Math.min(size, Math.min(getUsed(), budget.limitBytes() - budget.reservedBytes()));
    while (give > 0) {
      try {
        budget.reserve(give); // ballast: memwall can no longer use what Spark gets back
        break;
      } catch (BudgetExceededException raced) {
        give = Math.min(give / 2, budget.limitBytes() - budget.reservedBytes()); // memwall allocated meanwhile
      }
    }
    if (give <= 0) {
      return 0;
    }
    ballast += give;
    freeMemory(give);
    return give;
  }

  /** Returns the whole grant to Spark and the ballast to the budget. Idempotent. */
  synchronized void release() {
    if (budget != null && ballast > 0) {
      budget.release(ballast);
    }
    ballast = 0;
    long used = getUsed();
    if (used > 0) {
      freeMemory(used);
    }
  }

  @Override
  public synchronized String toString() {
    return "TaskMemoryLease[" + getUsed() + " bytes granted by Spark (" + getMode() + "), " + ballast
        + " bytes given back]";
  }
}
