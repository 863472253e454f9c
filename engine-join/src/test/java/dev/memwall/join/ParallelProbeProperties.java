package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.Table;
import dev.memwall.join.JoinTestData.Distribution;
import dev.memwall.join.JoinTestData.KeyType;
import dev.memwall.join.JoinTestData.Side;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.common.JoinType;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The open-addressing join's parallel probe: left inputs large enough to be split over 2 and 3
 * threads (at least 64 blocks of 1024 rows per thread), every join type, duplicate-heavy and skewed
 * keys with nulls, int32 and composite keys, against the nested-loop reference, with the pairs both
 * streamed (consumer called from every probing thread) and counted.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class ParallelProbeProperties {

  @Property(tries = 12)
  void parallelProbeMatchesNestedLoops(@ForAll JoinType type, @ForAll @IntRange(min = 2, max = 3) int threads,
      @ForAll boolean composite, @ForAll long seed, EngineMemory memory) {
    Random random = new Random(seed);
    List<KeyType> shape = composite ? List.of(KeyType.INT64, KeyType.INT32) : List.of(KeyType.INT32);
    Distribution distribution = random.nextBoolean() ? Distribution.DUPLICATE_HEAVY : Distribution.ZIPF_10;
    Side left = JoinTestData.generate(random, shape, 140_000 * threads, distribution, 200, 0.05);
    Side right = JoinTestData.generate(random, shape, 1 + random.nextInt(40), Distribution.RANDOM, 200, 0.1);
    long[] expected = JoinTestData.reference(left, right, type);
    List<String> keys = composite ? List.of(JoinTestData.keyName(0), JoinTestData.keyName(1))
        : List.of(JoinTestData.keyName(0));
    try (Table l = JoinTestData.table(memory, left, "l");
        Table r = JoinTestData.table(memory, right, "r")) {
      Join join = Join.of(memory, l, r).on(keys, keys).type(type).algorithm(JoinAlgorithm.OPEN_ADDRESSING)
          .threads(threads);
      try (JoinIndex index = join.index()) {
        assertArrayEquals(expected, JoinTestData.pairs(index), () -> type + " on " + threads + " threads differs");
      }
      assertEquals(expected.length, join.count(), "count-only mode must count the same pairs");
    }
  }
}
