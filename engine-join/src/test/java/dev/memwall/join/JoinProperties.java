package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.partition.RadixPlan;
import dev.memwall.core.vector.Table;
import dev.memwall.join.JoinTestData.Distribution;
import dev.memwall.join.JoinTestData.KeyType;
import dev.memwall.join.JoinTestData.Side;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.grace.GraceHashJoin;
import dev.memwall.join.inspector.InspectorJoin;
import dev.memwall.join.prefetch.BucketTable;
import dev.memwall.join.prefetch.PrefetchTuning;
import dev.memwall.join.prefetch.PrefetchingHashJoin;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * One property suite run against every algorithm: each must produce exactly the nested-loop
 * reference's pairs for every join type, on random, duplicate-heavy, Zipf-skewed (0.5 to 1.5),
 * empty, single-row and type-limit keys, with nulls, over int32, int64, two-int32 and wide
 * composite keys split into several batches; the radix algorithms also with 2 and 3 threads; the
 * spilling joins also under memory limits of 1/2, 1/8 and 1/64 of the build side.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class JoinProperties {

  /** One generated case. */
  record Case(Side left, Side right, JoinType type, RadixPlan radix, boolean writeCombining, int probeGroup,
      int chunkPairs, int threads) {}

  @Provide
  Arbitrary<JoinAlgorithm> algorithms() {
    return Arbitraries.of(JoinAlgorithm.values());
  }

  @Provide
  Arbitrary<Case> cases() {
    Arbitrary<List<KeyType>> shapes = Arbitraries.of(List.of(KeyType.INT32), List.of(KeyType.INT64),
        List.of(KeyType.INT32, KeyType.INT32), List.of(KeyType.INT64, KeyType.INT32));
    Arbitrary<Integer> sizes = Arbitraries.oneOf(Arbitraries.of(0, 1), Arbitraries.integers().between(0, 300));
    Arbitrary<Distribution> distributions = Arbitraries.of(Distribution.values());
    Arbitrary<Double> nulls = Arbitraries.of(0.0, 0.0, 0.1, 0.5);
    Arbitrary<RadixPlan> radix = Arbitraries.integers().between(0, 6).flatMap(bits -> bits == 0
        ? Arbitraries.just(RadixPlan.even(0, 0))
        : Arbitraries.integers().between(1, Math.min(3, bits)).map(p -> RadixPlan.even(bits, p)));
    return Combinators.combine(shapes, sizes, sizes, distributions, distributions, nulls, Arbitraries.longs(),
        Arbitraries.integers().between(1, 400)).flatAs((shape, ln, rn, ld, rd, nullFraction, seed, domain) -> {
          Random random = new Random(seed);
          Side left = JoinTestData.generate(random, shape, ln, ld, domain, nullFraction);
          Side right = JoinTestData.generate(random, shape, rn, rd, domain, nullFraction);
          return Combinators.combine(Arbitraries.of(JoinType.values()), radix, Arbitraries.of(true, false),
              Arbitraries.of(1, 4, 16), Arbitraries.of(1, 7, 4096), Arbitraries.of(1, 1, 2, 3))
              .as((type, plan, wc, group, chunk, threads) -> new Case(left, right, type, plan, wc, group, chunk,
                  threads));
        });
  }

  @Property(tries = 200)
  void everyAlgorithmMatchesNestedLoops(@ForAll("algorithms") JoinAlgorithm algorithm, @ForAll("cases") Case c,
      EngineMemory memory) {
    long[] expected = JoinTestData.reference(c.left(), c.right(), c.type());
    try (Table left = JoinTestData.table(memory, c.left(), "l");
        Table right = JoinTestData.table(memory, c.right(), "r")) {
      Join join = join(memory, left, right, algorithm, c);
      try (JoinIndex index = join.index()) {
        assertArrayEquals(expected, JoinTestData.pairs(index), () -> algorithm + " " + c.type() + " differs");
      }
      assertEquals(expected.length, join.count(), "count-only mode must count the same pairs");
    }
  }

  @Property(tries = 120)
  void chosenRadixPlansAreHonoured(@ForAll("radixAlgorithms") JoinAlgorithm algorithm, @ForAll("cases") Case c,
      EngineMemory memory) {
    long[] expected = JoinTestData.reference(c.left(), c.right(), c.type());
    try (Table left = JoinTestData.table(memory, c.left(), "l");
        Table right = JoinTestData.table(memory, c.right(), "r")) {
      Join join = join(memory, left, right, algorithm, c).radix(c.radix());
      try (JoinIndex index = join.index()) {
        assertArrayEquals(expected, JoinTestData.pairs(index), () -> algorithm + " " + c.radix() + " differs");
      }
    }
  }

  @Provide
  Arbitrary<JoinAlgorithm> radixAlgorithms() {
    return Arbitraries.of(JoinAlgorithm.SORT_MERGE, JoinAlgorithm.PHASH, JoinAlgorithm.PHASH_PLUS,
        JoinAlgorithm.RADIX_JOIN);
  }

  @Property(tries = 60)
  void materializedRowsCarryBothSidesPayloads(@ForAll("algorithms") JoinAlgorithm algorithm, @ForAll("cases") Case c,
      EngineMemory memory) {
    long[] expected = JoinTestData.reference(c.left(), c.right(), c.type());
    try (Table left = JoinTestData.table(memory, c.left(), "l");
        Table right = JoinTestData.table(memory, c.right(), "r");
        Table rows = join(memory, left, right, algorithm, c).materialize(List.of("p_l"), List.of("p_r"))) {
      List<Long> actual = new ArrayList<>();
      for (var batch : rows.batches()) {
        for (int i = 0; i < batch.rowCount(); i++) {
          Object l = batch.column("p_l").getObject(i);
          Object r = batch.column("p_r").getObject(i);
          actual.add(JoinTestData.pair((Integer) l, r == null ? JoinIndex.NO_ROW : (Integer) r));
        }
      }
      assertArrayEquals(expected, actual.stream().mapToLong(Long::longValue).sorted().toArray());
    }
  }

  @Provide
  Arbitrary<JoinAlgorithm> spillingAlgorithms() {
    return Arbitraries.of(JoinAlgorithm.GRACE, JoinAlgorithm.HYBRID_HASH);
  }

  /**
   * The spilling joins under memory limits of 1/2, 1/8 and 1/64 of the build side's in-memory size:
   * the same pairs as nested loops, a spill whenever the build side does not fit, and no spill file
   * left behind.
   */
  @Property(tries = 150)
  void spillingJoinsMatchNestedLoopsUnderSmallBudgets(@ForAll("spillingAlgorithms") JoinAlgorithm algorithm,
      @ForAll("cases") Case c, @ForAll("budgetDivisors") int divisor, @ForAll PrefetchingHashJoin.Mode loops,
      @ForAll("tunings") PrefetchTuning tuning, EngineMemory memory) throws Exception {
    long[] expected = JoinTestData.reference(c.left(), c.right(), c.type());
    long buildBytes = (long) c.right().rows() * BucketTable.BYTES_PER_TUPLE;
    long limit = Math.max(1, buildBytes / divisor);
    Path root = Files.createTempDirectory("memwall-spill-test");
    try (Table left = JoinTestData.table(memory, c.left(), "l");
        Table right = JoinTestData.table(memory, c.right(), "r")) {
      Join join = join(memory, left, right, algorithm, c).memoryLimit(limit).spillDirectory(root)
          .prefetch(loops, tuning);
      try (JoinIndex index = join.index()) {
        assertArrayEquals(expected, JoinTestData.pairs(index),
            () -> algorithm + " " + c.type() + " at 1/" + divisor + " " + loops + " " + tuning + " differs");
      }
      JoinReport run = join.analyze();
      assertEquals(expected.length, run.pairs(), "count-only mode must count the same pairs");
      GraceHashJoin.Report report = run.spill().orElseThrow();
      if (c.right().rows() > 1) {
        assertTrue(report.partitions() > 1, () -> "a build side over the limit must be partitioned: " + report);
      }
      try (var files = Files.list(root)) {
        assertEquals(0, files.count(), "spill files must be removed");
      }
    } finally {
      Files.deleteIfExists(root);
    }
  }

  /**
   * The Bloom-filter semi-join reducer in front of every algorithm leaves the pairs unchanged (rows
   * it rejects are reported by outer and anti joins themselves), and passes at most every left row.
   */
  @Property(tries = 150)
  void semiJoinReducerLeavesEveryResultUnchanged(@ForAll("algorithms") JoinAlgorithm algorithm,
      @ForAll("cases") Case c, EngineMemory memory) {
    long[] expected = JoinTestData.reference(c.left(), c.right(), c.type());
    try (Table left = JoinTestData.table(memory, c.left(), "l");
        Table right = JoinTestData.table(memory, c.right(), "r")) {
      Join join = join(memory, left, right, algorithm, c).semiJoinReducer(true);
      try (JoinIndex index = join.index()) {
        assertArrayEquals(expected, JoinTestData.pairs(index),
            () -> algorithm + " " + c.type() + " with a reducer differs");
      }
      JoinReport run = join.analyze();
      assertEquals(expected.length, run.pairs(), "count-only mode must count the same pairs");
      assertTrue(run.reducer().keptRows() <= c.left().rows(), run::toString);
    }
  }

  @Provide
  Arbitrary<JoinAlgorithm> inspectorAlgorithms() {
    return Arbitraries.of(JoinAlgorithm.INSPECTOR, JoinAlgorithm.ENHANCED_CACHE_PARTITIONING);
  }

  /**
   * The inspector join (every join phase) and enhanced cache partitioning against nested loops, with
   * tuples of 16 to 104 bytes and machines whose pages and caches are tiny, so that even these
   * inputs get several partitions, sub-partitions of one to a few tuples, more than 64 of them in a
   * skewed partition (several vertical filter sets), and many candidates per probe tuple under
   * duplicates; 1 to 3 threads. The report must say what ran.
   */
  @Property(tries = 250)
  void inspectorJoinsMatchNestedLoops(@ForAll("inspectorAlgorithms") JoinAlgorithm algorithm,
      @ForAll("cases") Case c, @ForAll InspectorJoin.Phase phase, @ForAll("tupleWidths") int tupleBytes,
      @ForAll("inspectorMachines") MachineProfile profile, EngineMemory memory) {
    long[] expected = JoinTestData.reference(c.left(), c.right(), c.type());
    try (Table left = JoinTestData.table(memory, c.left(), "l");
        Table right = JoinTestData.table(memory, c.right(), "r")) {
      Join join = join(memory, left, right, algorithm, c).profile(profile).tupleBytes(tupleBytes)
          .inspectorPhase(phase);
      try (JoinIndex index = join.index()) {
        assertArrayEquals(expected, JoinTestData.pairs(index),
            () -> algorithm + " " + c.type() + " " + phase + " " + tupleBytes + " B differs");
      }
      JoinReport run = join.analyze();
      assertEquals(expected.length, run.pairs(), "count-only mode must count the same pairs");
      InspectorJoin.Report report = run.inspector().orElseThrow();
      boolean inspects = algorithm == JoinAlgorithm.INSPECTOR && tupleBytes >= InspectorJoin.MIN_TUPLE_BYTES;
      assertEquals(inspects, report.inspected(), report::toString);
      assertEquals(algorithm == JoinAlgorithm.INSPECTOR && !inspects ? InspectorJoin.Fallback.NARROW_TUPLES : null,
          report.fallback(), report::toString);
      if (!inspects || phase == InspectorJoin.Phase.CACHE_PARTITIONING) {
        assertEquals(0, report.stationaryPartitions(), report::toString);
      } else if (phase == InspectorJoin.Phase.CACHE_STATIONARY) {
        assertEquals(0, report.cachePartitionedPartitions(), report::toString);
      }
    }
  }

  @Provide
  Arbitrary<Integer> tupleWidths() {
    return Arbitraries.of(16, 20, 24, 100);
  }

  @Provide
  Arbitrary<MachineProfile> inspectorMachines() {
    return Combinators.combine(Arbitraries.of(64, 256, 4096), Arbitraries.of(1024, 8192, 1 << 20))
        .as(TestProfiles::inspector);
  }

  @Provide
  Arbitrary<PrefetchTuning> tunings() {
    return Combinators.combine(Arbitraries.of(1, 2, 3, 8, 31), Arbitraries.of(1, 2, 5))
        .as(PrefetchTuning::new);
  }

  @Provide
  Arbitrary<Integer> budgetDivisors() {
    return Arbitraries.of(2, 8, 64);
  }

  private static Join join(EngineMemory memory, Table left, Table right, JoinAlgorithm algorithm, Case c) {
    List<String> keys = new ArrayList<>();
    for (int k = 0; k < c.left().types().size(); k++) {
      keys.add(JoinTestData.keyName(k));
    }
    return Join.of(memory, left, right).on(keys, keys).type(c.type()).algorithm(algorithm)
        .profile(TestProfiles.tiny()).writeCombining(c.writeCombining()).probeGroup(c.probeGroup())
        .chunkPairs(c.chunkPairs()).threads(c.threads());
  }
}
