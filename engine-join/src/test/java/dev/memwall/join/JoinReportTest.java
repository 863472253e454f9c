package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Table;
import dev.memwall.join.JoinTestData.Distribution;
import dev.memwall.join.JoinTestData.KeyType;
import dev.memwall.join.JoinTestData.Side;
import dev.memwall.join.algorithm.DenseKeyJoin;
import dev.memwall.join.algorithm.JoinMethod;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.prefetch.BucketTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every run returns its own {@link JoinReport}: the plan it ran, the pairs it produced and the
 * algorithm's own account, whichever terminal method ran it, and nothing of one run shows in the
 * next run of the same builder.
 */
@ExtendWith(LeakCheck.class)
class JoinReportTest {
  private static final int ROWS = 4_000;

  @Test
  void eachAlgorithmReportsWhatRanWithItsOwnDetails(EngineMemory memory, @TempDir Path spill) throws IOException {
    Random random = new Random(21);
    Side build = JoinTestData.generate(random, List.of(KeyType.INT64), ROWS, Distribution.UNIQUE, 0, 0);
    Side probe = JoinTestData.generate(random, List.of(KeyType.INT64), ROWS, Distribution.RANDOM, 2 * ROWS, 0.05);
    long expected = JoinTestData.reference(probe, build, JoinType.LEFT_OUTER).length;
    try (Table left = JoinTestData.table(memory, probe, "l"); Table right = JoinTestData.table(memory, build, "r")) {
      // one builder for every algorithm: a report must never carry what an earlier run did
      Join join = Join.of(memory, left, right).on("k0").type(JoinType.LEFT_OUTER).profile(TestProfiles.tiny())
          .memoryLimit((long) ROWS * BucketTable.BYTES_PER_TUPLE / 4).spillDirectory(spill).tupleBytes(32);
      for (JoinAlgorithm algorithm : JoinAlgorithm.values()) {
        join.algorithm(algorithm);
        JoinReport counted = join.analyze();
        String what = algorithm + ": " + counted;
        assertEquals(expected, counted.pairs(), what);
        assertEquals(algorithm == JoinAlgorithm.AUTO, counted.plan().algorithm() != algorithm, what);
        assertTrue(counted.nanos() > 0, what);
        assertNull(counted.reducer(), what);
        assertEquals(algorithm.spills(), counted.spill().isPresent(), what);
        boolean inspects = algorithm == JoinAlgorithm.INSPECTOR || algorithm == JoinAlgorithm.ENHANCED_CACHE_PARTITIONING;
        assertEquals(inspects, counted.inspector().isPresent(), what);
        boolean arrays = algorithm == JoinAlgorithm.DENSE_KEYS; // says whether the array fit (not here: spread keys)
        assertEquals(!algorithm.spills() && !inspects && !arrays, counted.details() == JoinMethod.NoDetails.NONE, what);
        if (arrays) {
          assertEquals(new DenseKeyJoin.Ran(false), counted.details(), what);
        }
        counted.spill().ifPresent(s -> assertTrue(s.partitions() > 1 && s.spilledBytes() > 0, what));
        AtomicLong streamed = new AtomicLong();
        JoinReport streaming = join.stream(chunk -> streamed.addAndGet(chunk.size()));
        assertEquals(expected, streamed.get(), what);
        assertEquals(expected, streaming.pairs(), what);
        assertEquals(counted.plan().algorithm(), streaming.plan().algorithm(), what);
        assertEquals(counted.details().getClass(), streaming.details().getClass(), what);
        try (var files = Files.list(spill)) {
          assertEquals(List.of(), files.toList(), what + " left spill files");
        }
      }
    }
  }

  @Test
  void theReducersAccountComesWithTheRunThatUsedIt(EngineMemory memory) {
    Random random = new Random(22);
    Side build = JoinTestData.generate(random, List.of(KeyType.INT32), ROWS, Distribution.UNIQUE, 0, 0);
    Side probe = JoinTestData.generate(random, List.of(KeyType.INT32), ROWS, Distribution.RANDOM, 4 * ROWS, 0);
    try (Table left = JoinTestData.table(memory, probe, "l"); Table right = JoinTestData.table(memory, build, "r")) {
      Join join = Join.of(memory, left, right).on("k0").algorithm(JoinAlgorithm.PHASH).profile(TestProfiles.vm());
      JoinReport reduced = join.semiJoinReducer(true).analyze();
      assertNotNull(reduced.reducer(), reduced::toString);
      assertEquals(ROWS, reduced.reducer().leftRows());
      assertTrue(reduced.reducer().keptRows() < ROWS, reduced::toString);
      assertTrue(reduced.describe().contains("semi-join reducer: kept " + reduced.reducer().keptRows()),
          reduced.describe());
      JoinReport plain = join.semiJoinReducer(false).analyze();
      assertNull(plain.reducer(), plain::toString);
      assertEquals(reduced.pairs(), plain.pairs());
      assertTrue(!plain.describe().contains("reducer"), plain.describe());
    }
  }

  @Test
  void explainAnalyzeDescribesTheAlgorithmsAccount(EngineMemory memory, @TempDir Path spill) {
    Random random = new Random(23);
    Side side = JoinTestData.generate(random, List.of(KeyType.INT64), ROWS, Distribution.UNIQUE, 0, 0);
    try (Table left = JoinTestData.table(memory, side, "l"); Table right = JoinTestData.table(memory, side, "r")) {
      String grace = Join.of(memory, left, right).on("k0").algorithm(JoinAlgorithm.GRACE).profile(TestProfiles.vm())
          .memoryLimit((long) ROWS * BucketTable.BYTES_PER_TUPLE / 4).spillDirectory(spill).explainAnalyze();
      assertTrue(grace.startsWith("GRACE") && grace.contains("measured") && grace.contains("for " + ROWS + " result rows")
          && grace.contains("partitions="), grace);
      String plain = Join.of(memory, left, right).on("k0").algorithm(JoinAlgorithm.SIMPLE_HASH)
          .profile(TestProfiles.vm()).explainAnalyze();
      assertEquals(2, plain.lines().count(), plain);
    }
  }
}
