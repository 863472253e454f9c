package dev.memwall.join.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.join.keys.KeyColumns;
import dev.memwall.join.keys.KeyShape;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link OpenAddressingTable} against a map from key to rows: built on one thread or, above
 * {@link OpenAddressingTable#PARALLEL_BUILD_ROWS} rows, on several (slot ranges inserted
 * independently), every key finds exactly its rows, chains included, and absent keys find nothing,
 * one at a time and in a block;
 * with duplicates, nulls and keys at the limits, in memory the pool hands back dirty.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class OpenAddressingTableProperties {
  @Property(tries = 12)
  void everyKeyFindsExactlyItsRows(@ForAll @IntRange(min = 0, max = 200_000) int rows,
      @ForAll @IntRange(min = 1, max = 3) int threads, @ForAll @IntRange(min = 1, max = 100_000) int domain,
      @ForAll long seed, EngineMemory memory) {
    check(rows, threads, domain, seed, memory);
  }

  /** A parallel build for certain, whatever the tries above drew. */
  @Example
  void parallelBuildFindsExactlyItsRows(EngineMemory memory) {
    check(3 * OpenAddressingTable.PARALLEL_BUILD_ROWS / 2, 2, 20_000, 7, memory);
  }

  private static void check(int rows, int threads, int domain, long seed, EngineMemory memory) {
    Random random = new Random(seed);
    List<Long> keys = new ArrayList<>();
    Map<Long, TreeSet<Integer>> expected = new HashMap<>();
    for (int row = 0; row < rows; row++) {
      Long key = random.nextInt(50) == 0 ? null
          : random.nextInt(100) == 0 ? (random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE) : (long) random.nextInt(domain);
      keys.add(key);
      if (key != null) {
        expected.computeIfAbsent(key, k -> new TreeSet<>()).add(row);
      }
    }
    leaveGarbage(memory, rows);
    try (Table table = table(memory, keys);
        OpenAddressingTable built = OpenAddressingTable.build(KeyColumns.of(table, List.of("k"), "right"), memory,
            threads)) {
      for (Map.Entry<Long, TreeSet<Integer>> entry : expected.entrySet()) {
        assertEquals(entry.getValue(), rowsOf(built, entry.getKey()), "rows of key " + entry.getKey());
      }
      List<Long> probes = new ArrayList<>(expected.keySet());
      for (long absent : new long[] {-1, domain, domain + 17L, Long.MIN_VALUE + 1}) {
        if (!expected.containsKey(absent)) {
          assertEquals(0, built.entryOf(hash(absent)), "absent key " + absent);
          probes.add(absent);
        }
      }
      long[] hashes = probes.stream().mapToLong(OpenAddressingTableProperties::hash).toArray();
      long[] entries = new long[hashes.length];
      built.entriesOf(hashes, hashes.length, entries);
      for (int i = 0; i < hashes.length; i++) {
        assertEquals(built.entryOf(hashes[i]), entries[i], "block lookup of key " + probes.get(i));
      }
    }
  }

  /**
   * Frees buffers of the sizes a build of {@code rows} rows takes, filled with ones, so that the
   * build gets regions back from the pool as they were left: a table must not rely on memory that
   * arrives zeroed where it does not ask for it.
   */
  private static void leaveGarbage(EngineMemory memory, int rows) {
    for (long bytes : new long[] {OpenAddressingTable.slots(rows) * 16, 4L * Math.max(1, rows), 8L * Math.max(1, rows)}) {
      try (OffHeapBuffer garbage = memory.allocate(bytes, Placement.HUGE_PAGES)) {
        garbage.segment().fill((byte) -1);
      }
    }
  }

  private static TreeSet<Integer> rowsOf(OpenAddressingTable table, long key) {
    TreeSet<Integer> rows = new TreeSet<>();
    long entry = table.entryOf(hash(key));
    if (entry != 0) {
      rows.add(OpenAddressingTable.firstRow(entry));
      for (int row = OpenAddressingTable.secondRow(entry); row >= 0; row = table.nextRow(row)) {
        rows.add(row);
      }
    }
    return rows;
  }

  /** The join hash of an int64 key, as the table's rows were hashed. */
  private static long hash(long key) {
    long[] hashes = new long[1];
    KeyColumns.hashValues(KeyShape.INT64, new long[][] {{key}}, new int[] {0}, 1, hashes);
    return hashes[0];
  }

  private static Table table(EngineMemory memory, List<Long> keys) {
    return KeyTables.of(memory, keys, ColumnType.INT64, 0);
  }
}
