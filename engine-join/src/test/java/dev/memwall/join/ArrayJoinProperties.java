package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.Table;
import dev.memwall.join.JoinTestData.KeyType;
import dev.memwall.join.JoinTestData.Side;
import dev.memwall.join.algorithm.DenseKeyJoin;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.common.JoinType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The array join ({@link JoinAlgorithm#DENSE_KEYS}) against nested loops: right keys unique and dense
 * (every other value of a range, shuffled, at the int32 and int64 limits too) with nulls on both
 * sides, left keys below, inside and above the range (half of them one hot key when skewed), every join type, one to three threads, asked
 * for by name or chosen by AUTO, which must choose it. A right side with one key repeated far from
 * its twin (which the planner's first look cannot see, unless the keyed rows outnumber the values of
 * their range: AUTO then costs the hash joins) runs the open-addressing join instead and says so; the
 * pairs are the same either way.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class ArrayJoinProperties {
  @Property(tries = 80)
  void arrayJoinsMatchNestedLoops(@ForAll JoinType type, @ForAll boolean int64, @ForAll boolean atLimit,
      @ForAll @IntRange(min = 1, max = 3_000) int rightRows, @ForAll @IntRange(min = 0, max = 20_000) int leftRows,
      @ForAll boolean auto, @ForAll boolean repeat, @ForAll boolean skewed, @ForAll @IntRange(min = 1, max = 3) int threads,
      @ForAll long seed, EngineMemory memory) {
    Random random = new Random(seed);
    long least = int64 ? Long.MIN_VALUE : Integer.MIN_VALUE;
    long greatest = int64 ? Long.MAX_VALUE : Integer.MAX_VALUE;
    long base = atLimit ? (random.nextBoolean() ? least : greatest - 2L * rightRows + 1) : random.nextInt(1000) - 500;
    List<Long> values = new ArrayList<>();
    for (long k = 0; k < 2L * rightRows; k++) {
      values.add(base + k);
    }
    Collections.shuffle(values, random);
    Long[] right = new Long[rightRows];
    for (int r = 0; r < rightRows; r++) {
      right[r] = random.nextInt(30) == 0 ? null : values.get(r);
    }
    boolean repeated = repeat && rightRows >= 4 && right[0] != null && right[rightRows - 1] != null;
    if (repeated) {
      right[1] = values.get(1); // so that a key other than its twin comes right before the repeat
      right[rightRows / 2] = right[0]; // far from its twin, behind different keys on both sides
    }
    Long[] left = new Long[leftRows];
    long hot = random.nextInt(3 * rightRows) - rightRows / 2;
    for (int l = 0; l < leftRows; l++) {
      long offset = skewed && random.nextBoolean() ? hot : random.nextInt(3 * rightRows) - rightRows / 2;
      boolean outside = offset > 0 ? base > greatest - offset : base < least - offset; // beyond the type
      left[l] = random.nextInt(40) == 0 || outside ? null : base + offset;
    }
    List<KeyType> types = List.of(int64 ? KeyType.INT64 : KeyType.INT32);
    Side l = new Side(types, new Long[][] {left}, split(random, leftRows));
    Side r = new Side(types, new Long[][] {right}, split(random, rightRows));
    long[] expected = JoinTestData.reference(l, r, type);
    try (Table lt = JoinTestData.table(memory, l, "l"); Table rt = JoinTestData.table(memory, r, "r")) {
      Join join = Join.of(memory, lt, rt).on(JoinTestData.keyName(0)).type(type)
          .algorithm(auto ? JoinAlgorithm.AUTO : JoinAlgorithm.DENSE_KEYS).profile(TestProfiles.tiny())
          .threads(threads).chunkPairs(1 + random.nextInt(4096));
      try (JoinIndex index = join.index()) {
        assertArrayEquals(expected, JoinTestData.pairs(index), () -> type + " differs");
      }
      JoinReport report = join.analyze();
      long[] keys = java.util.Arrays.stream(right).filter(k -> k != null).mapToLong(Long::longValue).toArray();
      // more keyed rows than values between the least and the greatest key: the first look sees the repeat
      boolean seenFirst = keys.length > 0
          && keys.length - 1 > java.util.Arrays.stream(keys).max().getAsLong() - java.util.Arrays.stream(keys).min().getAsLong();
      if (keys.length > 0 && auto && seenFirst) {
        assertNotEquals(JoinAlgorithm.DENSE_KEYS, report.plan().algorithm(), report.describe());
      } else if (keys.length > 0) {
        assertEquals(JoinAlgorithm.DENSE_KEYS, report.plan().algorithm(), report.describe());
        assertEquals(new DenseKeyJoin.Ran(!repeated), report.details(), report.describe());
      }
      assertEquals(expected.length, report.pairs());
    }
  }

  /** One to four batches of random sizes, empty ones included. */
  private static int[] split(Random random, int rows) {
    int batches = 1 + random.nextInt(4);
    int[] sizes = new int[batches];
    int left = rows;
    for (int b = 0; b < batches - 1; b++) {
      sizes[b] = random.nextInt(left + 1);
      left -= sizes[b];
    }
    sizes[batches - 1] = left;
    return sizes;
  }
}
