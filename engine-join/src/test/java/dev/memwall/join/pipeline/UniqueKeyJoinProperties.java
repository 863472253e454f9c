package dev.memwall.join.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.pipeline.HashProbeStageProperties.Row;
import dev.memwall.join.relational.Relation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Inner joins that keep only left columns, against nested loops: over right keys that are unique
 * (the probe then narrows as a semi join, {@link HashProbeStage#narrowsOnly}) or repeated a few times
 * (it pairs), with null keys on both sides, keys at the types' limits, a skewed left side, empty
 * sides, one to three key columns (exact and confirmed hashes), left sides long enough for the key
 * filter to be decided on, and one to four workers.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class UniqueKeyJoinProperties {
  @Property(tries = 60)
  void innerJoinsKeepingOnlyLeftColumnsMatchNestedLoops(@ForAll @IntRange(min = 1, max = 3) int keyCount,
      @ForAll @IntRange(min = 0, max = 40_000) int leftRows, @ForAll @IntRange(min = 0, max = 2_000) int rightRows,
      @ForAll @IntRange(min = 0, max = 3) int duplicates, @ForAll boolean skewed, @ForAll boolean dictionary,
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 4) int threads, EngineMemory memory) {
    Random random = new Random(seed);
    int domain = 4 * rightRows + 1;
    List<Integer> distinct = new ArrayList<>();
    for (int k = 0; k < domain; k++) {
      distinct.add(k);
    }
    Collections.shuffle(distinct, random);
    List<Row> right = new ArrayList<>();
    for (int i = 0; i < rightRows; i++) {
      right.add(i == 0 ? limitRow(random) : keyRow(random, distinct.get(i)));
    }
    for (int d = 0; d < duplicates && !right.isEmpty(); d++) {
      Row copied = right.get(random.nextInt(right.size()));
      right.add(new Row(copied.a(), copied.b(), copied.c(), random.nextInt(1000), copied.s()));
    }
    Collections.shuffle(right, random);
    int hot = random.nextInt(domain);
    List<Row> left = new ArrayList<>();
    for (int i = 0; i < leftRows; i++) {
      left.add(random.nextInt(50) == 0 ? limitRow(random)
          : keyRow(random, skewed && random.nextBoolean() ? hot : random.nextInt(domain)));
    }

    Map<List<Object>, Integer> partners = new HashMap<>();
    for (Row r : right) {
      List<Object> key = HashProbeStageProperties.keyOf(r, keyCount);
      if (!key.contains(null)) {
        partners.merge(key, 1, Integer::sum);
      }
    }
    boolean unique = partners.values().stream().allMatch(n -> n == 1);
    List<List<Object>> expected = new ArrayList<>();
    for (Row l : left) {
      List<Object> key = HashProbeStageProperties.keyOf(l, keyCount);
      int matches = key.contains(null) ? 0 : partners.getOrDefault(key, 0);
      for (int m = 0; m < matches; m++) {
        expected.add(Arrays.asList(l.v(), l.s()));
      }
    }

    ExecutionContext context = new ExecutionContext(memory, threads);
    List<String> keys = List.of("a", "b", "c").subList(0, keyCount);
    try (Table l = HashProbeStageProperties.table(memory, random, left, "l", dictionary);
        Table r = HashProbeStageProperties.table(memory, random, right, "r", !dictionary)) {
      Relation joined = Relation.scan(l, context).join(Relation.scan(r, context))
          .on(keys.stream().map(k -> "l" + k).toList(), keys.stream().map(k -> "r" + k).toList())
          .keep("lv", "ls");
      String plan = joined.explain();
      try (Table actual = joined.toTable()) {
        assertEquals(unique, plan.contains("narrowing"), "narrows exactly when the right keys are unique: " + plan);
        assertEquals(HashProbeStageProperties.sorted(expected), HashProbeStageProperties.rows(actual),
            (unique ? "unique" : "repeated") + " right keys on " + keys);
      }
    }
  }

  /** A row whose keys derive from {@code k} (distinct k, distinct keys), each null now and then. */
  private static Row keyRow(Random random, int k) {
    Integer a = random.nextInt(25) == 0 ? null : k;
    Long b = random.nextInt(25) == 0 ? null : k * 3L - 7;
    Integer c = random.nextInt(25) == 0 ? null : 9000 + k;
    return new Row(a, b, c, random.nextInt(1000), random.nextInt(10) == 0 ? null : HashProbeStageProperties.WORDS[k % HashProbeStageProperties.WORDS.length]);
  }

  /** The row at the types' limits (its key is outside every {@link #keyRow}'s). */
  private static Row limitRow(Random random) {
    return new Row(Integer.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE, random.nextInt(1000), null);
  }
}
