package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.vector.Table;
import dev.memwall.join.JoinTestData.KeyType;
import dev.memwall.join.JoinTestData.Side;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.inspector.InspectorJoin;
import dev.memwall.join.inspector.InspectorSizing;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What the inspection finds and decides, on inputs large enough for the sizing to matter. */
@ExtendWith(LeakCheck.class)
class InspectorJoinTest {

  /** {@code rows} int32 keys: key {@code i / copies} at a random position, or a key from another range. */
  private static Side keys(Random random, int rows, int copies, int matchingPercent, int offset) {
    Long[][] keys = new Long[1][rows];
    for (int i = 0; i < rows; i++) {
      keys[0][i] = random.nextInt(100) < matchingPercent ? (long) (i / copies) : offset + i;
    }
    for (int i = rows - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      Long t = keys[0][i];
      keys[0][i] = keys[0][j];
      keys[0][j] = t;
    }
    return new Side(List.of(KeyType.INT32), keys, new int[] {rows / 3, rows - rows / 3});
  }

  private static long[] pairs(Join join) {
    try (JoinIndex index = join.index()) {
      return JoinTestData.pairs(index);
    }
  }

  /**
   * Unique build keys (a foreign-key join): about one candidate sub-partition per probe tuple that
   * passes, nearly every non-matching probe tuple dropped by the filters, every partition joined
   * cache-stationary; the pairs those of the simple hash join, with 1 and 2 threads.
   */
  @Test
  void uniqueBuildKeysGiveAboutOneCandidateAndDropNonMatchingProbes(EngineMemory memory) {
    Random random = new Random(11);
    Side build = keys(random, 60_000, 1, 100, 0);
    Side probe = keys(random, 60_000, 1, 50, 1 << 24);
    try (Table left = JoinTestData.table(memory, probe, "l"); Table right = JoinTestData.table(memory, build, "r")) {
      long[] expected = pairs(Join.of(memory, left, right).on("k0").algorithm(JoinAlgorithm.SIMPLE_HASH));
      for (int threads = 1; threads <= 2; threads++) {
        Join join = Join.of(memory, left, right).on("k0").algorithm(JoinAlgorithm.INSPECTOR)
            .profile(TestProfiles.vm()).tupleBytes(100).threads(threads);
        assertArrayEquals(expected, pairs(join));
        InspectorJoin.Report report = join.analyze().inspector().orElseThrow();
        assertTrue(report.inspected(), report::toString);
        assertNull(report.fallback(), report::toString);
        assertTrue(report.subPartitions() > 1, report::toString);
        assertTrue(report.averageCandidates() >= 1 && report.averageCandidates() < 1.1, report::toString);
        long nonMatching = 60_000 - expected.length;
        assertTrue(report.droppedProbeTuples() > 0.9 * nonMatching && report.droppedProbeTuples() <= nonMatching,
            report::toString);
        assertEquals(report.sizing().partitions(), report.stationaryPartitions(), report::toString);
      }
    }
  }

  /**
   * Eight copies of every build key in sub-partitions of a few tuples: probe tuples have about eight
   * candidates, so AUTO cache-partitions (section 5.6.5) and gives the pairs the forced
   * cache-stationary phase gives.
   */
  @Test
  void duplicateBuildKeysSwitchToCachePartitioning(EngineMemory memory) {
    Random random = new Random(12);
    Side build = keys(random, 4_000, 8, 100, 0);
    Side probe = keys(random, 4_000, 1, 100, 0);
    try (Table left = JoinTestData.table(memory, probe, "l"); Table right = JoinTestData.table(memory, build, "r")) {
      long[] expected = pairs(Join.of(memory, left, right).on("k0").algorithm(JoinAlgorithm.SIMPLE_HASH));
      Join auto = Join.of(memory, left, right).on("k0").algorithm(JoinAlgorithm.INSPECTOR)
          .profile(TestProfiles.inspector(256, 1024)).tupleBytes(64);
      assertArrayEquals(expected, pairs(auto));
      InspectorJoin.Report report = auto.analyze().inspector().orElseThrow();
      assertTrue(report.averageCandidates() >= InspectorJoin.MAX_AVERAGE_CANDIDATES, report::toString);
      assertEquals(0, report.stationaryPartitions(), report::toString);
      Join stationary = Join.of(memory, left, right).on("k0").algorithm(JoinAlgorithm.INSPECTOR)
          .profile(TestProfiles.inspector(256, 1024)).tupleBytes(64).inspectorPhase(InspectorJoin.Phase.CACHE_STATIONARY);
      assertArrayEquals(expected, pairs(stationary));
      assertEquals(0, stationary.analyze().inspector().orElseThrow().cachePartitionedPartitions());
    }
  }

  /** Narrow tuples and filters too big for the budget fall back to enhanced cache partitioning, with the same pairs. */
  @Test
  void narrowTuplesAndFiltersThatDoNotFitFallBack(EngineMemory memory) {
    Random random = new Random(13);
    Side build = keys(random, 20_000, 1, 100, 0);
    Side probe = keys(random, 20_000, 2, 80, 1 << 24);
    try (Table left = JoinTestData.table(memory, probe, "l"); Table right = JoinTestData.table(memory, build, "r")) {
      long[] expected = pairs(Join.of(memory, left, right).on("k0").algorithm(JoinAlgorithm.SIMPLE_HASH));
      Join narrow = Join.of(memory, left, right).on("k0").algorithm(JoinAlgorithm.INSPECTOR)
          .profile(TestProfiles.vm()).tupleBytes(16);
      assertArrayEquals(expected, pairs(narrow));
      InspectorJoin.Report narrowReport = narrow.analyze().inspector().orElseThrow();
      assertEquals(InspectorJoin.Fallback.NARROW_TUPLES, narrowReport.fallback(), narrowReport::toString);
      // a budget that holds the partitions but not the filters of a machine with one-tuple sub-partitions
      InspectorJoin.Settings settings = InspectorJoin.Settings.of(TestProfiles.inspector(64, 64), 100, 1,
          InspectorJoin.Phase.AUTO, true);
      InspectorSizing sizing = InspectorSizing.of(20_000, 100, 64, settings.cacheBytes());
      assertEquals(1, sizing.tuplesPerSubPartition(), sizing::toString);
      long withoutFilters = InspectorJoin.bytesFor(20_000, 0, 20_000, settings);
      long filters = 20_000L * sizing.filterBytes();
      try (EngineMemory tight = EngineMemory.create(MemoryBudget.of("tight", withoutFilters + filters / 2))) {
        Join join = Join.of(tight, left, right).on("k0").algorithm(JoinAlgorithm.INSPECTOR)
            .profile(TestProfiles.inspector(64, 64)).tupleBytes(100);
        JoinReport run = join.analyze();
        assertEquals(expected.length, run.pairs());
        InspectorJoin.Report report = run.inspector().orElseThrow();
        assertEquals(InspectorJoin.Fallback.FILTERS_OVER_BUDGET, report.fallback(), report::toString);
        assertTrue(tight.budget().peakBytes() <= tight.budget().limitBytes());
      }
    }
  }
}
