package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.vector.Table;
import dev.memwall.join.JoinTestData.Distribution;
import dev.memwall.join.JoinTestData.KeyType;
import dev.memwall.join.JoinTestData.Side;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinMemoryException;
import dev.memwall.join.inspector.InspectorJoin;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The join's budget checks (the up-front check of its working memory, the inspector join's check for
 * room for its filters) go through {@link EngineMemory#reserveHeap}, the path every charge takes: the
 * freed memory an {@link EngineMemory} keeps for reuse still counts against its budget, and is given
 * up before the budget refuses, so it never makes a join fail or fall back that would fit without it.
 * A budget too small for the join still fails by name, with nothing left reserved.
 */
@ExtendWith(LeakCheck.class)
class PooledMemoryBudgetTest {
  private static final int ROWS = 20_000;

  @Test
  void theUpFrontCheckGivesUpPooledMemoryAndATooSmallBudgetStillFails(EngineMemory tables) {
    try (Table left = table(tables, 1, "l"); Table right = table(tables, 2, "r")) {
      long required = required(left, right, JoinAlgorithm.SIMPLE_HASH);
      long pooled = Long.highestOneBit(required) * 2;
      long expected = Join.of(tables, left, right).on("k0").algorithm(JoinAlgorithm.SIMPLE_HASH).count();
      // room for the join, but not beside the pooled region: the check must give the region up
      MemoryBudget budget = MemoryBudget.of("pooled", required + pooled - 1);
      try (EngineMemory memory = EngineMemory.create(budget, pooled)) {
        pool(memory, pooled);
        assertEquals(expected, Join.of(memory, left, right).on("k0").algorithm(JoinAlgorithm.SIMPLE_HASH)
            .profile(TestProfiles.vm()).count());
        assertEquals(0, memory.allocatedBytes(), "the join left memory allocated");
      }
      // a budget that cannot hold the join even without the pooled region refuses it by name
      MemoryBudget small = MemoryBudget.of("small", required - 1);
      try (EngineMemory memory = EngineMemory.create(small, required / 2)) {
        pool(memory, Long.highestOneBit(required / 2));
        JoinMemoryException e = assertThrows(JoinMemoryException.class, () -> Join.of(memory, left, right).on("k0")
            .algorithm(JoinAlgorithm.SIMPLE_HASH).profile(TestProfiles.vm()).count());
        assertEquals(required, e.requiredBytes());
        assertTrue(e.getMessage().contains("small"), e.getMessage());
        assertEquals(0, memory.allocatedBytes(), "the refused join left memory allocated");
        assertEquals(0, small.reservedBytes(), "the refused check left memory reserved (the pool is given up)");
      }
    }
  }

  @Test
  void theInspectorJoinGivesUpPooledMemoryBeforeFallingBack(EngineMemory tables) {
    try (Table left = table(tables, 3, "l"); Table right = table(tables, 4, "r")) {
      long required = required(left, right, JoinAlgorithm.INSPECTOR);
      long expected = Join.of(tables, left, right).on("k0").algorithm(JoinAlgorithm.SIMPLE_HASH).count();
      // the up-front check fits beside the pooled region; the filters fit only once it is given up
      long pooled = Long.highestOneBit(4 * required);
      MemoryBudget budget = MemoryBudget.of("pooled", required + pooled);
      try (EngineMemory memory = EngineMemory.create(budget, pooled)) {
        pool(memory, pooled);
        JoinReport run = Join.of(memory, left, right).on("k0").algorithm(JoinAlgorithm.INSPECTOR)
            .profile(TestProfiles.vm()).tupleBytes(100).analyze();
        assertEquals(expected, run.pairs());
        InspectorJoin.Report report = run.inspector().orElseThrow();
        assertNull(report.fallback(), report::toString);
        assertTrue(report.inspected(), report::toString);
        assertEquals(0, memory.allocatedBytes(), "the join left memory allocated");
        assertTrue(budget.peakBytes() <= budget.limitBytes());
      }
    }
  }

  /** The working memory the join asks for: what a budget of one byte reports. */
  private static long required(Table left, Table right, JoinAlgorithm algorithm) {
    try (EngineMemory none = EngineMemory.create(MemoryBudget.of("none", 1))) {
      return assertThrows(JoinMemoryException.class, () -> Join.of(none, left, right).on("k0").algorithm(algorithm)
          .profile(TestProfiles.vm()).tupleBytes(100).count()).requiredBytes();
    }
  }

  /** Leaves a freed region of {@code bytes} (a size class of its own) in {@code memory}'s pool, still charged. */
  private static void pool(EngineMemory memory, long bytes) {
    memory.allocate(bytes).close();
    assertEquals(bytes, memory.recycledBytes(), "the freed region is kept for reuse");
    assertEquals(bytes, memory.budget().reservedBytes(), "a pooled region counts against the budget");
  }

  private static Table table(EngineMemory memory, long seed, String suffix) {
    Side side = JoinTestData.generate(new Random(seed), List.of(KeyType.INT64), ROWS, Distribution.RANDOM, 2 * ROWS,
        0);
    return JoinTestData.table(memory, side, suffix);
  }
}
