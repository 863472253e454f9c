package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.MemoryBudget;
import org.apache.spark.SparkConf;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.memory.UnifiedMemoryManager;
import org.junit.jupiter.api.Test;

/**
 * The lease against Spark's own memory manager: what it grants bounds memwall; asked to spill, it gives
 * back memwall's headroom.
 */
class TaskMemoryLeaseTest {
  private static final long MB = 1 << 20;

  @Test
  void givesBackWhatMemwallDoesNotUseWhenSparkAsks() {
    UnifiedMemoryManager spark = new UnifiedMemoryManager(new SparkConf(false), 100 * MB, 50 * MB, 1);
    TaskMemoryManager task = new TaskMemoryManager(spark, 0);
    TaskMemoryLease lease = new TaskMemoryLease(task);
    assertEquals(MemoryMode.ON_HEAP, lease.getMode(), "Spark's on-heap pool stands in without off-heap memory");
    long granted = lease.acquire(64 * MB);
    assertEquals(64 * MB, granted);
    MemoryBudget budget = MemoryBudget.of("memwall", granted);
    lease.attach(budget);
    budget.reserve(10 * MB); // memwall uses 10 of its 64

    MemoryConsumer other = new MemoryConsumer(task, MemoryMode.ON_HEAP) {
      @Override
      public long spill(long size, MemoryConsumer trigger) {
        return 0;
      }
    };
    assertEquals(80 * MB, other.acquireMemory(80 * MB), "36 free, 44 from memwall's unused 54");
    assertEquals(20 * MB, lease.getUsed());
    budget.reserve(10 * MB); // memwall still has its 10 more
    assertThrows(BudgetExceededException.class, () -> budget.reserve(1), "but no more than Spark left it");

    budget.release(20 * MB);
    lease.release();
    assertEquals(0, lease.getUsed());
    assertEquals(0, budget.reservedBytes(), "the ballast is returned with the lease");
    other.freeMemory(80 * MB);
    assertEquals(0, task.cleanUpAllAllocatedMemory());
  }

  @Test
  void keepsWhatMemwallUses() {
    UnifiedMemoryManager spark = new UnifiedMemoryManager(new SparkConf(false), 100 * MB, 50 * MB, 1);
    TaskMemoryManager task = new TaskMemoryManager(spark, 0);
    TaskMemoryLease lease = new TaskMemoryLease(task);
    MemoryBudget budget = MemoryBudget.of("memwall", lease.acquire(64 * MB));
    lease.attach(budget);
    budget.reserve(64 * MB);
    assertEquals(0, lease.spill(10 * MB, null));
    assertEquals(64 * MB, lease.getUsed());
    budget.release(64 * MB);
    lease.release();
    assertEquals(0, task.cleanUpAllAllocatedMemory());
  }
}
