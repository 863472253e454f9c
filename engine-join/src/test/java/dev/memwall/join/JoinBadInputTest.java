package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.join.JoinTestData.Distribution;
import dev.memwall.join.JoinTestData.KeyType;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinKeyException;
import dev.memwall.join.common.JoinMemoryException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LeakCheck.class)
class JoinBadInputTest {

  private static Table mixed(EngineMemory memory) {
    try (TableBuilder b = new TableBuilder(List.of("i", "l", "d", "s"),
        List.of(ColumnType.INT32, ColumnType.INT64, ColumnType.FLOAT64, ColumnType.STRING), memory.arrow())) {
      for (int r = 0; r < 10; r++) {
        b.appendLong(r).appendLong(r).appendDouble(r).appendString(("v" + r).getBytes(StandardCharsets.UTF_8));
        b.endRow();
      }
      return b.build();
    }
  }

  @Test
  void mismatchedKeyTypesNameBothColumns(EngineMemory memory) {
    try (Table t = mixed(memory)) {
      JoinKeyException e = assertThrows(JoinKeyException.class,
          () -> Join.of(memory, t, t).on(List.of("i"), List.of("l")).algorithm(JoinAlgorithm.SIMPLE_HASH).count());
      assertTrue(e.getMessage().contains("'i'") && e.getMessage().contains("'l'"), e.getMessage());
    }
  }

  @Test
  void unsupportedKeyTypesAreRefused(EngineMemory memory) {
    try (Table t = mixed(memory)) {
      for (String column : List.of("d", "s")) {
        JoinKeyException e = assertThrows(JoinKeyException.class,
            () -> Join.of(memory, t, t).on(column).algorithm(JoinAlgorithm.OPEN_ADDRESSING).count());
        assertTrue(e.getMessage().contains("'" + column + "'"), e.getMessage());
      }
    }
  }

  @Test
  void missingColumnsAndKeyCountsAreRefused(EngineMemory memory) {
    try (Table t = mixed(memory)) {
      assertThrows(JoinKeyException.class, () -> Join.of(memory, t, t).on("nope").count());
      assertThrows(JoinKeyException.class, () -> Join.of(memory, t, t).on(List.of("i", "l"), List.of("i")).count());
      assertThrows(JoinKeyException.class, () -> Join.of(memory, t, t).count());
      assertThrows(IllegalArgumentException.class, () -> Join.of(memory, t, t).on("i")
          .algorithm(JoinAlgorithm.SIMPLE_HASH).materialize(List.of("i"), List.of("i")));
    }
  }

  @Test
  void aBudgetTooSmallFailsBeforeAnyWork(EngineMemory memory) {
    Random random = new Random(7);
    var side = JoinTestData.generate(random, List.of(KeyType.INT32), 20_000, Distribution.UNIQUE, 0, 0);
    try (Table left = JoinTestData.table(memory, side, "l"); Table right = JoinTestData.table(memory, side, "r")) {
      for (JoinAlgorithm algorithm : JoinAlgorithm.values()) {
        if (algorithm.spills()) {
          continue; // they partition to disk instead: see below
        }
        MemoryBudget small = MemoryBudget.of("small", 64 << 10);
        AtomicInteger chunks = new AtomicInteger();
        try (EngineMemory tight = EngineMemory.create(small)) {
          JoinMemoryException e = assertThrows(JoinMemoryException.class, () -> Join.of(tight, left, right)
              .on("k0").algorithm(algorithm).profile(TestProfiles.vm()).stream(c -> chunks.incrementAndGet()));
          assertTrue(e.getMessage().contains("small"), e.getMessage());
          assertTrue(e.requiredBytes() > small.limitBytes());
          assertEquals(0, chunks.get(), "no output before the budget check");
          assertEquals(0, small.peakBytes(), algorithm + " allocated before failing");
        }
      }
      // the spilling joins fit the small budget by spilling, and stay inside it
      for (JoinAlgorithm algorithm : List.of(JoinAlgorithm.GRACE, JoinAlgorithm.HYBRID_HASH)) {
        MemoryBudget small = MemoryBudget.of("small", 64 << 10);
        try (EngineMemory tight = EngineMemory.create(small)) {
          Join join = Join.of(tight, left, right).on("k0").algorithm(algorithm).profile(TestProfiles.vm());
          JoinReport run = join.analyze();
          assertEquals(20_000, run.pairs(), algorithm.name());
          assertTrue(run.spill().orElseThrow().partitions() > 1, run::toString);
          assertTrue(small.peakBytes() <= small.limitBytes(), algorithm.name());
        }
      }
      // the same join fits a sufficient budget
      try (EngineMemory roomy = EngineMemory.create(MemoryBudget.of("roomy", 64 << 20))) {
        assertEquals(20_000, Join.of(roomy, left, right).on("k0").profile(TestProfiles.vm()).count());
      }
    }
  }

  @Test
  void aFailingConsumerLeavesNothingAllocated(EngineMemory memory) {
    Random random = new Random(3);
    var side = JoinTestData.generate(random, List.of(KeyType.INT64), 5_000, Distribution.RANDOM, 100, 0.1);
    try (Table left = JoinTestData.table(memory, side, "l"); Table right = JoinTestData.table(memory, side, "r")) {
      long before = memory.allocatedBytes();
      for (int threads = 1; threads <= 2; threads++) {
        for (JoinAlgorithm algorithm : JoinAlgorithm.values()) {
          int t = threads;
          assertThrows(IllegalStateException.class, () -> Join.of(memory, left, right).on("k0").algorithm(algorithm)
              .profile(TestProfiles.vm()).chunkPairs(100).threads(t).stream(c -> {
                throw new IllegalStateException("consumer gave up");
              }));
          assertEquals(before, memory.allocatedBytes(), algorithm + " with " + t + " threads leaked working memory");
        }
      }
    }
  }

  @Test
  void explainNamesTheChoiceAndTheMeasurement(EngineMemory memory) {
    Random random = new Random(5);
    var side = JoinTestData.generate(random, List.of(KeyType.INT32), 3_000, Distribution.UNIQUE, 0, 0);
    try (Table left = JoinTestData.table(memory, side, "l"); Table right = JoinTestData.table(memory, side, "r")) {
      long tablesBytes = memory.allocatedBytes();
      String explain = Join.of(memory, left, right).on("k0").profile(TestProfiles.vm()).explainAnalyze();
      assertTrue(explain.contains("predicted") && explain.contains("measured"), explain);
      String unrun = Join.of(memory, left, right).on("k0").profile(TestProfiles.vm()).explain();
      assertTrue(unrun.contains("predicted") && unrun.contains("working memory") && !unrun.contains("measured"), unrun);
      assertEquals(0, memory.allocatedBytes() - tablesBytes, "explain allocates nothing");
      // a table this small fits the cache: AUTO prices the clustering algorithms as one cluster, and says so
      for (JoinAlgorithm a : JoinAlgorithm.values()) {
        assertEquals(a.costed(), explain.contains(a.name()), a + " in " + explain);
      }
      assertTrue(explain.contains("costed as one cluster") && explain.contains("B=0 P=0") && !explain.contains("P=1"),
          explain);
      assertFalse(explain.startsWith("AUTO"), explain);
      String named = Join.of(memory, left, right).on("k0").profile(TestProfiles.vm())
          .algorithm(JoinAlgorithm.PHASH).explainAnalyze();
      assertTrue(named.startsWith("PHASH") && named.contains("measured"), named);
      for (JoinAlgorithm a : JoinAlgorithm.values()) {
        // the spilling joins and those asked for by name only are not costed, so not among the alternatives
        assertTrue(!a.costed() || named.contains(a.name()), a + " missing from " + named);
      }
    }
  }
}
