package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.MemoryBudget;
import org.apache.spark.SparkConf;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.memory.UnifiedMemoryManager;
import org.junit.jupiter.api.Test;

/**
 * The lease against Spark's own memory manager: memwall's budget grows from what Spark grants, in
 * doubling steps, never past the lease's limit; asked to spill, the lease gives back what memwall does
 * not hold.
 */
class TaskMemoryLeaseTest {
  private static final long MB = 1 << 20;

  /** A task of a Spark whose execution pool holds about {@code mb} MiB, on heap. */
  private static TaskMemoryManager task(long mb) {
    return new TaskMemoryManager(new UnifiedMemoryManager(new SparkConf(false), mb * MB, mb * MB / 2, 1), 0);
  }

  private static MemoryConsumer other(TaskMemoryManager task) {
    return new MemoryConsumer(task, MemoryMode.ON_HEAP) {
      @Override
      public long spill(long size, MemoryConsumer trigger) {
        return 0;
      }
    };
  }

  @Test
  void theBudgetGrowsFromSparkAsMemwallReservesAndGivesBackWhatItDoesNotHold() {
    TaskMemoryManager task = task(100);
    TaskMemoryLease lease = new TaskMemoryLease(task, 64 * MB);
    assertEquals(MemoryMode.ON_HEAP, lease.getMode(), "Spark's on-heap pool stands in without off-heap memory");
    MemoryBudget budget = lease.budget("memwall");
    assertEquals(0, lease.getUsed(), "nothing is taken up front");
    budget.reserve(1 * MB);
    assertEquals(TaskMemoryLease.FIRST_STEP, lease.getUsed(), "a first step, not a megabyte at a time");
    budget.reserve(9 * MB);
    assertEquals(10 * MB, budget.limitBytes(), "6 more: at least what was missing");
    budget.reserve(1 * MB);
    assertEquals(20 * MB, lease.getUsed(), "a step as large as what the lease holds");

    MemoryConsumer other = other(task);
    long free = other.acquireMemory(85 * MB);
    assertEquals(85 * MB, free, "80 free, 5 of memwall's 9 unheld");
    assertEquals(15 * MB, lease.getUsed());
    assertEquals(15 * MB, budget.limitBytes(), "the budget shrank before Spark got them back");
    budget.reserve(4 * MB); // what memwall kept
    assertThrows(BudgetExceededException.class, () -> budget.reserve(1), "Spark has nothing left to grant");

    budget.release(15 * MB);
    lease.release();
    assertEquals(0, lease.getUsed());
    other.freeMemory(85 * MB);
    assertEquals(0, task.cleanUpAllAllocatedMemory());
  }

  @Test
  void neverPastTheLeasesLimitEvenWhenSparkHasMore() {
    TaskMemoryManager task = task(100);
    TaskMemoryLease lease = new TaskMemoryLease(task, 8 * MB);
    MemoryBudget budget = lease.budget("memwall");
    budget.reserve(6 * MB);
    budget.reserve(2 * MB);
    assertEquals(8 * MB, lease.getUsed(), "the step stops at the limit");
    var refused = assertThrows(BudgetExceededException.class, () -> budget.reserve(1));
    assertTrue(refused.getMessage().contains("'memwall'"), refused.getMessage());
    assertEquals(8 * MB, lease.getUsed(), "nothing asked past the limit");
    budget.release(8 * MB);
    lease.release();
    assertEquals(0, task.cleanUpAllAllocatedMemory());
  }

  @Test
  void keepsWhatMemwallHolds() {
    TaskMemoryManager task = task(100);
    TaskMemoryLease lease = new TaskMemoryLease(task, 64 * MB);
    MemoryBudget budget = lease.budget("memwall");
    budget.reserve(12 * MB);
    assertEquals(12 * MB, lease.getUsed());
    assertEquals(0, lease.spill(10 * MB, null));
    assertEquals(0, lease.spill(10 * MB, lease), "a lease asking for memory gives none of its own back");
    assertEquals(12 * MB, lease.getUsed());
    budget.release(12 * MB);
    lease.release();
    lease.release();
    assertEquals(0, task.cleanUpAllAllocatedMemory());
  }

  @Test
  void whenWhatIsUnheldIsNotEnoughTheHeldResultIsWrittenOutAndGivenBack() {
    TaskMemoryManager task = task(100);
    TaskMemoryLease lease = new TaskMemoryLease(task, 64 * MB);
    MemoryBudget budget = lease.budget("memwall");
    budget.reserve(40 * MB); // a result being read
    long[] held = {40 * MB};
    int[] asked = {0};
    lease.spillable(bytes -> {
      asked[0]++;
      long freed = held[0] - 2 * MB; // the batch being read stays
      budget.release(freed);
      held[0] -= freed;
      return freed;
    });
    MemoryConsumer other = other(task);
    assertEquals(10 * MB, other.acquireMemory(10 * MB), "the pool's free memory: nothing asked of memwall");
    assertEquals(0, asked[0]);
    assertEquals(60 * MB, other.acquireMemory(60 * MB), "50 free, and 10 of the 38 memwall wrote out");
    assertEquals(1, asked[0]);
    assertEquals(30 * MB, lease.getUsed(), "memwall keeps the 28 it freed beyond the request, for reading back");
    assertEquals(30 * MB, budget.limitBytes(), "the budget shrank before Spark got them back");
    MemoryConsumer third = other(task);
    assertEquals(18 * MB, third.acquireMemory(18 * MB), "what memwall freed and holds no more");
    assertEquals(1, asked[0], "nothing more written out: the grant memwall did not hold was enough");
    assertEquals(12 * MB, lease.getUsed());

    budget.release(held[0]);
    lease.release();
    other.freeMemory(70 * MB);
    third.freeMemory(18 * MB);
    assertEquals(0, task.cleanUpAllAllocatedMemory());
  }

  @Test
  void theRoomPromisedIsSparksEstimateOfATasksShareWhereItIsBelowTheLimit() {
    SparkConf pages = new SparkConf(false).set("spark.buffer.pageSize", "1m");
    TaskMemoryManager task = new TaskMemoryManager(new UnifiedMemoryManager(pages, 100 * MB, 50 * MB, 1), 0);
    TaskMemoryLease lease = new TaskMemoryLease(task, 64 * MB);
    MemoryBudget budget = lease.budget("memwall");
    assertEquals(TaskMemoryLease.PAGES_PER_TASK * MB, budget.availableBytes(), "eight pages of 1 MiB, not 64 MiB");
    budget.reserve(3 * MB);
    assertEquals(TaskMemoryLease.PAGES_PER_TASK * MB - 3 * MB, budget.availableBytes(),
        "granted 4, 1 of it free, 4 more to come");
    TaskMemoryLease small = new TaskMemoryLease(task, 2 * MB);
    assertEquals(2 * MB, small.budget("small").availableBytes(), "the limit where it is below the estimate");
    budget.release(3 * MB);
    lease.release();
    assertEquals(0, task.cleanUpAllAllocatedMemory());
  }

  @Test
  void withSparksOffHeapPoolMemwallNeverHoldsMoreThanIt() {
    SparkConf offHeap = new SparkConf(false).set("spark.memory.offHeap.enabled", "true")
        .set("spark.memory.offHeap.size", Long.toString(32 * MB));
    TaskMemoryManager task = new TaskMemoryManager(new UnifiedMemoryManager(offHeap, 100 * MB, 50 * MB, 1), 0);
    TaskMemoryLease lease = new TaskMemoryLease(task, 1L << 30);
    assertEquals(MemoryMode.OFF_HEAP, lease.getMode(), "memwall's memory is charged to Spark's off-heap pool");
    MemoryBudget budget = lease.budget("memwall");
    long held = 0;
    try {
      while (true) {
        budget.reserve(3 * MB);
        held += 3 * MB;
      }
    } catch (BudgetExceededException refused) {
      assertTrue(refused.getMessage().contains("'memwall'"), refused.getMessage());
    }
    assertEquals(30 * MB, held, "ten reservations of 3 MiB fit a pool of 32 MiB, the eleventh does not");
    assertTrue(lease.getUsed() <= 32 * MB && budget.limitBytes() == lease.getUsed(),
        "granted " + lease.getUsed() + ", budget " + budget.limitBytes());
    budget.release(held);
    lease.release();
    assertEquals(0, task.cleanUpAllAllocatedMemory());
  }
}
