package dev.memwall.core.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link GroupTable} with a single key against a map from key to first-appearance index: keys that
 * fit the slots (key-in-slot mode) in random order, through the table's growth, then a key that
 * does not (a null, or one beyond 32 bits: at the type's limits) arriving late, after which every
 * earlier key must still find its group; looked up one at a time and a chunk at a time.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class GroupTableProperties {
  /** What arrives once the table holds many fitting keys. */
  enum LateKey { NONE, NULL, WIDE }

  @Property(tries = 30)
  void singleKeysKeepTheirGroupsAcrossGrowthAndTheEndOfKeyInSlotMode(@ForAll long seed,
      @ForAll @IntRange(min = 1, max = 200_000) int distinct, @ForAll LateKey late, @ForAll boolean chunked,
      EngineMemory memory) {
    Random random = new Random(seed);
    List<long[]> tuples = new ArrayList<>(); // {key, null mask}
    for (int i = 0; i < 2 * distinct; i++) {
      int key = random.nextInt(4) == 0 ? random.nextInt(16) - 8 : random.nextInt() % distinct;
      tuples.add(new long[] {key, 0});
    }
    int at = tuples.size() / 2 + random.nextInt(tuples.size() / 2 + 1);
    switch (late) {
      case NULL -> tuples.add(at, new long[] {0, 1});
      case WIDE -> {
        tuples.add(at, new long[] {Long.MAX_VALUE, 0});
        tuples.add(Math.min(tuples.size(), at + 1), new long[] {Integer.MAX_VALUE + 1L, 0});
        tuples.add(new long[] {Long.MIN_VALUE, 0});
        tuples.add(new long[] {Integer.MIN_VALUE, 0});
      }
      case NONE -> { }
    }
    tuples.addAll(tuples.subList(0, tuples.size() / 3)); // earlier keys looked up again at the end

    Map<List<Long>, Integer> expected = new HashMap<>();
    try (GroupTable table = new GroupTable(memory, 2)) {
      assertTrue(table.keyInSlot(), "a single key starts in key-in-slot mode");
      int[] groups = chunked ? lookUpInChunks(table, tuples) : lookUpOneByOne(table, tuples);
      for (int i = 0; i < tuples.size(); i++) {
        long[] tuple = tuples.get(i);
        int group = expected.computeIfAbsent(List.of(tuple[0], tuple[1]), k -> expected.size());
        assertEquals(group, groups[i], "group of " + tuple[0] + " (null " + tuple[1] + ") at " + i);
      }
      assertEquals(expected.size(), table.groups());
      assertEquals(late == LateKey.NONE, table.keyInSlot(), "key-in-slot mode after " + late);
      for (Map.Entry<List<Long>, Integer> e : expected.entrySet()) {
        assertEquals(e.getKey().get(0), table.key(e.getValue(), 0));
        assertEquals(e.getKey().get(1), table.key(e.getValue(), 1));
      }
    }
  }

  /** Where a range of dense keys lies: anywhere in 32 bits, up to both of its ends. */
  enum DenseBase { ONE, NEGATIVE, INT_MIN, INT_MAX }

  /**
   * Dense keys (customer keys) take the direct index once the slots are large, then keys below and
   * above its range arrive (taking the slots, and a later index's range), a late null or wide key,
   * and the table is cleared and filled again: every key keeps its first-appearance group throughout.
   */
  @Property(tries = 12)
  void denseKeysTakeTheDirectIndexAndKeepTheirGroups(@ForAll long seed,
      @ForAll @IntRange(min = 40_000, max = 160_000) int distinct, @ForAll DenseBase where, @ForAll LateKey late,
      @ForAll boolean chunked, EngineMemory memory) {
    Random random = new Random(seed);
    long base = switch (where) {
      case ONE -> 1;
      case NEGATIVE -> -distinct / 2;
      case INT_MIN -> Integer.MIN_VALUE + 10L;
      case INT_MAX -> Integer.MAX_VALUE - (long) distinct;
    };
    List<long[]> tuples = new ArrayList<>();
    for (int i = 0; i < 2 * distinct; i++) {
      tuples.add(new long[] {base + random.nextInt(distinct), 0});
    }
    List<long[]> outside = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      long key = random.nextBoolean() ? base - 1 - random.nextInt(10) : base + distinct + random.nextInt(distinct);
      if (key >= Integer.MIN_VALUE && key <= Integer.MAX_VALUE) {
        outside.add(new long[] {key, 0});
      }
    }
    switch (late) {
      case NULL -> outside.add(new long[] {0, 1});
      case WIDE -> outside.add(new long[] {Long.MAX_VALUE, 0});
      case NONE -> { }
    }
    outside.addAll(tuples.subList(0, 5_000)); // keys of the range looked up again after the others

    try (GroupTable table = new GroupTable(memory, 2)) {
      for (int fill = 0; fill < 2; fill++) {
        Map<List<Long>, Integer> expected = new HashMap<>();
        int[] groups = chunked ? lookUpInChunks(table, tuples) : lookUpOneByOne(table, tuples);
        assertTrue(table.directlyIndexed() || table.ordered(), distinct + " dense keys from " + base + " (fill " + fill + ")");
        int[] later = chunked ? lookUpInChunks(table, outside) : lookUpOneByOne(table, outside);
        List<long[]> all = new ArrayList<>(tuples);
        all.addAll(outside);
        for (int i = 0; i < all.size(); i++) {
          long[] tuple = all.get(i);
          int group = expected.computeIfAbsent(List.of(tuple[0], tuple[1]), k -> expected.size());
          int actual = i < groups.length ? groups[i] : later[i - groups.length];
          assertEquals(group, actual, "group of " + tuple[0] + " (null " + tuple[1] + ") at " + i + " (fill " + fill + ")");
        }
        assertEquals(expected.size(), table.groups());
        table.clear();
      }
    }
  }

  @Property(tries = 5)
  void aKeyTupleOfTwoKeysNeverUsesKeyInSlotMode(@ForAll long seed, EngineMemory memory) {
    try (GroupTable table = new GroupTable(memory, 3)) {
      assertFalse(table.keyInSlot());
      Random random = new Random(seed);
      Map<List<Long>, Integer> expected = new HashMap<>();
      for (int i = 0; i < 10_000; i++) {
        long[] tuple = {random.nextInt(50), random.nextInt(50), 0};
        int group = expected.computeIfAbsent(List.of(tuple[0], tuple[1]), k -> expected.size());
        assertEquals(group, table.findOrInsert(tuple));
      }
    }
  }

  private static int[] lookUpOneByOne(GroupTable table, List<long[]> tuples) {
    int[] groups = new int[tuples.size()];
    for (int i = 0; i < groups.length; i++) {
      groups[i] = table.findOrInsert(tuples.get(i).clone());
    }
    return groups;
  }

  /** Through the chunk path: key and null-mask columns of up to a chunk of rows at a time. */
  private static int[] lookUpInChunks(GroupTable table, List<long[]> tuples) {
    int[] groups = new int[tuples.size()];
    long[][] columns = {new long[Chunk.CAPACITY], new long[Chunk.CAPACITY]};
    int[] positions = new int[Chunk.CAPACITY];
    int[] ids = new int[Chunk.CAPACITY];
    for (int from = 0; from < tuples.size(); from += Chunk.CAPACITY) {
      int n = Math.min(Chunk.CAPACITY, tuples.size() - from);
      for (int i = 0; i < n; i++) {
        columns[0][i] = tuples.get(from + i)[0];
        columns[1][i] = tuples.get(from + i)[1];
        positions[i] = i;
      }
      table.findOrInsert(columns, positions, n, ids);
      System.arraycopy(ids, 0, groups, from, n);
    }
    return groups;
  }
}
