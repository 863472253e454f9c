package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.hash.Hashing;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Table;
import dev.memwall.join.JoinTestData.Distribution;
import dev.memwall.join.JoinTestData.KeyType;
import dev.memwall.join.JoinTestData.Side;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.keys.KeyColumns;
import dev.memwall.join.planner.JoinPlan;
import dev.memwall.join.planner.Planner;
import dev.memwall.join.planner.ProbeSkew;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LeakCheck.class)
class ProbeSkewTest {
  @Test
  void recurringHashesAreHot() {
    assertEquals(ProbeSkew.UNIFORM, ProbeSkew.of(new long[0]));
    assertEquals(new ProbeSkew(0, 0, 4), ProbeSkew.of(new long[] {4, 3, 2, 1}));
    assertEquals(new ProbeSkew(1, 1, 3), ProbeSkew.of(new long[] {7, 7, 7}));
    long[] hashes = {3, 1, 3, Long.MIN_VALUE, 3, 2, Long.MIN_VALUE};
    long[] copy = hashes.clone();
    assertEquals(new ProbeSkew(5 / 7.0, 2, 7), ProbeSkew.of(hashes));
    assertArrayEquals(copy, hashes, "the sample is not modified");
    assertThrows(IllegalArgumentException.class, () -> new ProbeSkew(1.5, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new ProbeSkew(0.5, 3, 2));
  }

  @Test
  void aSampleTellsUniformFromZipfKeys() {
    int domain = 16 << 20;
    assertTrue(share(domain, 0, 1) < 0.01, "uniform over 16M keys");
    double zipf10 = share(domain, 1.0, 2);
    assertTrue(zipf10 > 0.2 && zipf10 < 0.6, "Zipf 1.0 over 16M keys: " + zipf10);
    assertTrue(share(domain, 1.5, 3) > 0.8, "Zipf 1.5 over 16M keys");
  }

  /** The hot share of a planner-sized sample of keys drawn from {@code domain} ranks with Zipf exponent {@code s}. */
  private static double share(int domain, double s, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] hashes = new long[ProbeSkew.SAMPLE];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = Hashing.mix64(s == 0 ? random.nextInt(domain) : zipfRank(random.nextDouble(), domain, s));
    }
    return ProbeSkew.of(hashes).hotShare();
  }

  /** The rank of quantile {@code u} under Zipf({@code s}) over {@code n} ranks, by the integral approximation of the CDF. */
  private static long zipfRank(double u, long n, double s) {
    if (s == 1) {
      return (long) Math.min(n - 1, Math.floor(Math.pow(n + 1, u) - 1));
    }
    double total = (Math.pow(n + 1, 1 - s) - 1) / (1 - s);
    return (long) Math.min(n - 1, Math.floor(Math.pow(1 + u * total * (1 - s), 1 / (1 - s)) - 1));
  }

  @Test
  void sampledHashesAreThoseOfNonNullRows(EngineMemory memory) {
    // random, type-limit, Zipf and duplicate-heavy keys, with and without nulls, over 1-3 batches
    for (long seed = 0; seed < 20; seed++) {
      Random random = new Random(seed);
      List<KeyType> shape = seed % 2 == 0 ? List.of(KeyType.INT64) : List.of(KeyType.INT32, KeyType.INT32);
      Distribution distribution = List.of(Distribution.RANDOM, Distribution.TYPE_LIMITS, Distribution.ZIPF_15,
          Distribution.DUPLICATE_HEAVY).get((int) (seed % 4));
      Side side = JoinTestData.generate(random, shape, random.nextInt(500), distribution, 50,
          seed % 3 == 0 ? 0.5 : 0.0);
      try (Table table = JoinTestData.table(memory, side, "s")) {
        List<String> keys = shape.size() == 1 ? List.of("k0") : List.of("k0", "k1");
        KeyColumns columns = KeyColumns.of(table, keys, "probe");
        Set<Long> extracted = extractedHashes(memory, columns);
        long[] sample = columns.sampleHashes(300, seed);
        assertArrayEquals(sample, columns.sampleHashes(300, seed), "deterministic for a seed");
        assertTrue(sample.length <= 300);
        if (!extracted.isEmpty() && seed % 3 != 0) {
          assertEquals(300, sample.length, "no nulls: every draw counts");
        }
        for (long hash : sample) {
          assertTrue(extracted.contains(hash), "hash of a non-null row: " + hash + " in " + side);
        }
      }
    }
  }

  @Test
  void allNullOrEmptyKeysGiveAnEmptySample(EngineMemory memory) {
    Long[][] nulls = {new Long[50]};
    try (Table allNull = JoinTestData.table(memory, new Side(List.of(KeyType.INT32), nulls, new int[] {50}), "n");
        Table empty = JoinTestData.table(memory, new Side(List.of(KeyType.INT32), new Long[][] {new Long[0]},
            new int[] {0}), "e")) {
      assertEquals(0, KeyColumns.of(allNull, List.of("k0"), "probe").sampleHashes(100, 1).length);
      assertEquals(0, KeyColumns.of(empty, List.of("k0"), "probe").sampleHashes(100, 1).length);
    }
  }

  private static Set<Long> extractedHashes(EngineMemory memory, KeyColumns columns) {
    long rows = Math.max(1, columns.rowCount());
    try (var hashes = memory.allocate(rows * Long.BYTES); var ids = memory.allocate(rows * Integer.BYTES)) {
      long at = 0;
      for (int b = 0; b < columns.batches(); b++) {
        at += (int) columns.extract(b, 0, columns.batchRows(b), hashes.segment(), ids.segment(), at, null, 0);
      }
      long[] all = hashes.segment().asSlice(0, at * Long.BYTES).toArray(java.lang.foreign.ValueLayout.JAVA_LONG);
      return Arrays.stream(all).boxed().collect(Collectors.toSet());
    }
  }

  @Test
  void skewedProbesOfATableBeyondTheCacheGoUnpartitioned() {
    // workload A on the shared-L3 VM: uniform probes are partitioned, Zipf 1.5 ones (about 93% on a
    // few hundred hot keys in a sample) keep their hot slots cached in the open-addressing table
    Planner planner = new Planner(TestProfiles.sharedL3(Double.NaN));
    JoinPlan uniform = planner.plan(JoinAlgorithm.AUTO, 64 << 20, 16 << 20, null, false);
    assertTrue(uniform.algorithm().clusters(), uniform.describe());
    JoinPlan skewed = planner.plan(JoinAlgorithm.AUTO, 64 << 20, 16 << 20, null, false,
        () -> new ProbeSkew(0.93, 150, ProbeSkew.SAMPLE));
    assertEquals(JoinAlgorithm.OPEN_ADDRESSING, skewed.algorithm(), skewed.describe());
    assertTrue(skewed.describe().contains("93.0% on 150 hot keys"), skewed.describe());
    JoinPlan.Candidate uniformPlus = candidate(uniform, JoinAlgorithm.PHASH_PLUS);
    JoinPlan.Candidate skewedPlus = candidate(skewed, JoinAlgorithm.PHASH_PLUS);
    assertEquals(uniformPlus.cost().totalNanos(), skewedPlus.cost().totalNanos(), 1e-6,
        "skewed probes do not make partitioning cheaper");
  }

  @Test
  void theProbeKeysAreSampledOnlyWhenSkewCanChangeTheChoice() {
    Planner planner = new Planner(TestProfiles.sharedL3(Double.NaN));
    java.util.function.Supplier<ProbeSkew> refuse = () -> {
      throw new AssertionError("sampled");
    };
    // a table within the last cache stays unpartitioned whatever the keys; a named algorithm is not costed by skew
    assertEquals(ProbeSkew.UNIFORM, planner.plan(JoinAlgorithm.AUTO, 1 << 20, 1000, null, true, refuse).probeSkew());
    assertEquals(ProbeSkew.UNIFORM,
        planner.plan(JoinAlgorithm.PHASH_PLUS, 64 << 20, 16 << 20, null, true, refuse).probeSkew());
  }

  @Test
  void joinsSampleTheirProbeSide(EngineMemory memory) {
    // 100K unique build keys make a 4 MiB open-addressing table, beyond the VM profile's 2 MiB last cache
    Random random = new Random(11);
    Side build = JoinTestData.generate(random, List.of(KeyType.INT64), 100_000, Distribution.UNIQUE, 0, 0);
    Side zipf = JoinTestData.generate(random, List.of(KeyType.INT64), 200_000, Distribution.ZIPF_15, 100_000, 0.05);
    Side uniform = JoinTestData.generate(random, List.of(KeyType.INT64), 200_000, Distribution.RANDOM, 100_000, 0);
    try (Table right = JoinTestData.table(memory, build, "r");
        Table skewedLeft = JoinTestData.table(memory, zipf, "l");
        Table uniformLeft = JoinTestData.table(memory, uniform, "l")) {
      Join skewed = Join.of(memory, skewedLeft, right).on("k0").profile(TestProfiles.vm());
      JoinPlan plan = skewed.plan();
      assertTrue(plan.probeSkew().hotShare() > 0.8, plan.describe());
      assertFalse(plan.algorithm().clusters(), plan.describe());
      long nonNull = Arrays.stream(zipf.keys()[0]).filter(k -> k != null).count();
      assertEquals(nonNull, skewed.count(), "every non-null probe key is a build key");

      JoinPlan flat = Join.of(memory, uniformLeft, right).on("k0").profile(TestProfiles.vm()).plan();
      assertTrue(flat.probeSkew().sampled() == ProbeSkew.SAMPLE && flat.probeSkew().hotShare() < 0.2,
          flat.describe());
    }
  }

  private static JoinPlan.Candidate candidate(JoinPlan plan, JoinAlgorithm algorithm) {
    return plan.alternatives().stream().filter(c -> c.algorithm() == algorithm).findFirst().orElseThrow();
  }
}
