package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Table;
import dev.memwall.join.JoinTestData.Distribution;
import dev.memwall.join.JoinTestData.KeyType;
import dev.memwall.join.JoinTestData.Side;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.common.JoinSpillException;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.grace.GraceHashJoin;
import dev.memwall.join.prefetch.BucketTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spilling joins' paths that small random cases rarely reach: recursive re-partitioning, block
 * nested loops for one over-frequent key, and the removal of spill files on failure, a full disk
 * (the spill quota) and interruption.
 */
@ExtendWith(LeakCheck.class)
class SpillingJoinTest {
  @TempDir
  Path root;

  private static Join join(EngineMemory memory, Table left, Table right, JoinAlgorithm algorithm, JoinType type) {
    return Join.of(memory, left, right).on("k0").type(type).algorithm(algorithm).profile(TestProfiles.tiny());
  }

  private void assertNoSpillFiles() throws IOException {
    try (var files = Files.list(root)) {
      assertEquals(List.of(), files.toList(), "spill files must be removed");
    }
  }

  @Test
  void partitionsTooBigForTheFanoutAreRepartitionedWithAFreshHash(EngineMemory memory) throws IOException {
    Random random = new Random(7);
    Side build = JoinTestData.generate(random, List.of(KeyType.INT64), 30_000, Distribution.UNIQUE, 0, 0);
    Side probe = JoinTestData.generate(random, List.of(KeyType.INT64), 20_000, Distribution.RANDOM, 40_000, 0.01);
    try (Table left = JoinTestData.table(memory, probe, "l"); Table right = JoinTestData.table(memory, build, "r")) {
      for (JoinType type : JoinType.values()) {
        long[] expected = index(join(memory, left, right, JoinAlgorithm.SIMPLE_HASH, type));
        // 1/600 of the build side: k = 720 > MAX_FANOUT, so partitions need a second level
        long limit = 30_000L * BucketTable.BYTES_PER_TUPLE / 600;
        for (JoinAlgorithm algorithm : List.of(JoinAlgorithm.GRACE, JoinAlgorithm.HYBRID_HASH)) {
          Join spilling = join(memory, left, right, algorithm, type).memoryLimit(limit).spillDirectory(root);
          assertArrayEquals(expected, index(spilling), () -> algorithm + " " + type);
          GraceHashJoin.Report report = spilling.analyze().spill().orElseThrow();
          assertEquals(GraceHashJoin.MAX_FANOUT, report.partitions(), report::toString);
          assertTrue(report.repartitionedPartitions() > 0 && report.maxLevel() >= 2, report::toString);
          assertTrue(report.spilledBytes() >= 16L * 30_000, report::toString);
          assertNoSpillFiles();
        }
      }
    }
  }

  @Test
  void oneKeyTooFrequentForMemoryFallsBackToBlockNestedLoops(EngineMemory memory) throws IOException {
    Random random = new Random(11);
    Side build = JoinTestData.generate(random, List.of(KeyType.INT32), 3_000, Distribution.DUPLICATE_HEAVY, 1, 0);
    Side probe = JoinTestData.generate(random, List.of(KeyType.INT32), 300, Distribution.DUPLICATE_HEAVY, 2, 0.1);
    try (Table left = JoinTestData.table(memory, probe, "l"); Table right = JoinTestData.table(memory, build, "r")) {
      for (JoinType type : JoinType.values()) {
        long[] expected = JoinTestData.reference(probe, build, type);
        for (JoinAlgorithm algorithm : List.of(JoinAlgorithm.GRACE, JoinAlgorithm.HYBRID_HASH)) {
          Join spilling = join(memory, left, right, algorithm, type).memoryLimit(3_000L * BucketTable.BYTES_PER_TUPLE / 64)
              .spillDirectory(root);
          assertArrayEquals(expected, index(spilling), () -> algorithm + " " + type);
          GraceHashJoin.Report report = spilling.analyze().spill().orElseThrow();
          assertTrue(report.blockNestedLoopPartitions() > 0, report::toString);
          assertNoSpillFiles();
        }
      }
    }
  }

  @Test
  void hybridKeepsPartitionsInMemoryAndSpillsLess(EngineMemory memory) {
    Random random = new Random(3);
    Side build = JoinTestData.generate(random, List.of(KeyType.INT32), 20_000, Distribution.UNIQUE, 0, 0);
    Side probe = JoinTestData.generate(random, List.of(KeyType.INT32), 20_000, Distribution.RANDOM, 20_000, 0);
    try (Table left = JoinTestData.table(memory, probe, "l"); Table right = JoinTestData.table(memory, build, "r")) {
      long limit = 20_000L * BucketTable.BYTES_PER_TUPLE / 2;
      Join grace = join(memory, left, right, JoinAlgorithm.GRACE, JoinType.INNER).memoryLimit(limit).spillDirectory(root);
      Join hybrid = join(memory, left, right, JoinAlgorithm.HYBRID_HASH, JoinType.INNER).memoryLimit(limit)
          .spillDirectory(root);
      JoinReport graceRun = grace.analyze();
      JoinReport hybridRun = hybrid.analyze();
      assertEquals(graceRun.pairs(), hybridRun.pairs());
      assertEquals(join(memory, left, right, JoinAlgorithm.SIMPLE_HASH, JoinType.INNER).count(), graceRun.pairs());
      GraceHashJoin.Report graceSpill = graceRun.spill().orElseThrow();
      GraceHashJoin.Report hybridSpill = hybridRun.spill().orElseThrow();
      assertEquals(0, graceSpill.residentPartitions());
      assertTrue(hybridSpill.residentPartitions() > 0, hybridSpill::toString);
      assertTrue(hybridSpill.spilledBytes() < graceSpill.spilledBytes(), () -> hybridSpill + " vs " + graceSpill);
    }
  }

  @Test
  void aFullSpillQuotaIsAClearErrorAndLeavesNoFiles(EngineMemory memory) throws IOException {
    Random random = new Random(5);
    Side build = JoinTestData.generate(random, List.of(KeyType.INT32), 5_000, Distribution.UNIQUE, 0, 0);
    try (Table left = JoinTestData.table(memory, build, "l"); Table right = JoinTestData.table(memory, build, "r")) {
      for (JoinAlgorithm algorithm : List.of(JoinAlgorithm.GRACE, JoinAlgorithm.HYBRID_HASH)) {
        JoinSpillException e = assertThrows(JoinSpillException.class,
            () -> join(memory, left, right, algorithm, JoinType.INNER).memoryLimit(20_000).spillDirectory(root)
                .spillQuota(16 * 1_000).count());
        assertEquals(JoinSpillException.Reason.DISK_FULL, e.reason());
        assertTrue(e.getMessage().contains("quota") && e.getMessage().contains(root.toString()), e.getMessage());
        assertNoSpillFiles();
      }
    }
  }

  @Test
  void aFailingConsumerLeavesNoFiles(EngineMemory memory) throws IOException {
    Random random = new Random(9);
    Side build = JoinTestData.generate(random, List.of(KeyType.INT32), 5_000, Distribution.UNIQUE, 0, 0);
    try (Table left = JoinTestData.table(memory, build, "l"); Table right = JoinTestData.table(memory, build, "r")) {
      AtomicInteger chunks = new AtomicInteger();
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> join(memory, left, right, JoinAlgorithm.GRACE, JoinType.INNER).memoryLimit(20_000).spillDirectory(root)
              .chunkPairs(100).stream(chunk -> {
                if (chunks.incrementAndGet() == 3) {
                  throw new IllegalStateException("consumer gave up");
                }
              }));
      assertEquals("consumer gave up", e.getMessage());
      assertNoSpillFiles();
    }
  }

  @Test
  void anInterruptedJoinStopsAndLeavesNoFiles(EngineMemory memory) throws IOException {
    Random random = new Random(13);
    Side build = JoinTestData.generate(random, List.of(KeyType.INT32), 5_000, Distribution.UNIQUE, 0, 0);
    try (Table left = JoinTestData.table(memory, build, "l"); Table right = JoinTestData.table(memory, build, "r")) {
      AtomicInteger chunks = new AtomicInteger();
      JoinSpillException e = assertThrows(JoinSpillException.class,
          () -> join(memory, left, right, JoinAlgorithm.GRACE, JoinType.INNER).memoryLimit(20_000).spillDirectory(root)
              .chunkPairs(100).stream(chunk -> {
                if (chunks.incrementAndGet() == 2) {
                  Thread.currentThread().interrupt(); // as if another thread interrupted the join here
                }
              }));
      assertTrue(Thread.interrupted(), "the interrupt status must be kept");
      assertEquals(JoinSpillException.Reason.INTERRUPTED, e.reason());
      assertNoSpillFiles();
    }
  }

  private static long[] index(Join join) {
    try (JoinIndex index = join.index()) {
      return JoinTestData.pairs(index);
    }
  }
}
