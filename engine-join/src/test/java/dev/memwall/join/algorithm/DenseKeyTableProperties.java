package dev.memwall.join.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.concurrent.CancellationToken;
import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.join.keys.KeyColumns;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link DenseKeyTable} against a map from key to row: over int32 and int64 keys placed anywhere in
 * their type's range (at both limits too), as dense as one value per row and as sparse as the limit
 * allows, with nulls, over several batches, every key finds its row and every other key (below, above
 * and inside the range) finds nothing, one at a time and in a block. Where it must not apply (a key
 * repeated next to itself or far from it, a range whose array exceeds the limit, no keyed row) the
 * build declines and holds nothing; a cancelled build throws and holds nothing.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class DenseKeyTableProperties {
  @Property(tries = 40)
  void uniqueKeysFindTheirRowsAndRepeatsDecline(@ForAll @IntRange(min = 0, max = 20_000) int rows,
      @ForAll @IntRange(min = 1, max = 40) int spread, @ForAll boolean ints, @ForAll @IntRange(min = 0, max = 3) int at,
      @ForAll @IntRange(min = 0, max = 2) int repeats, @ForAll boolean repeatAdjacent, @ForAll boolean nulls,
      @ForAll long seed, EngineMemory memory) {
    Random random = new Random(seed);
    long span = Math.max(1L, (long) rows * spread);
    long limit = ints ? Integer.MAX_VALUE : Long.MAX_VALUE;
    long least = ints ? Integer.MIN_VALUE : Long.MIN_VALUE;
    long min = switch (at) {
      case 0 -> least; // the range starts at the type's least value
      case 1 -> limit - span + 1; // and ends at its greatest
      case 2 -> -span / 2; // across zero
      default -> random.nextInt(1_000_000);
    };
    List<Long> keys = new ArrayList<>();
    HashSet<Long> used = new HashSet<>();
    while (keys.size() < rows) {
      long key = min + (long) (random.nextDouble() * span);
      if (used.add(key)) {
        keys.add(key);
      }
    }
    Collections.shuffle(keys, random);
    for (int r = 0; r < repeats && !keys.isEmpty(); r++) {
      int of = random.nextInt(keys.size());
      keys.add(repeatAdjacent ? of + 1 : random.nextInt(keys.size() + 1), keys.get(of));
    }
    if (nulls) {
      for (int n = 0; n < 1 + rows / 50; n++) {
        keys.add(random.nextInt(keys.size() + 1), null);
      }
    }
    Map<Long, Integer> expected = new HashMap<>();
    for (int row = 0; row < keys.size(); row++) {
      if (keys.get(row) != null) {
        expected.putIfAbsent(keys.get(row), row);
      }
    }
    boolean repeated = expected.size() < keys.stream().filter(k -> k != null).count();
    long limitBytes = 4L * 10 * Math.max(1, rows); // a range of at most ten values per row
    long range = expected.isEmpty() ? 0 : Collections.max(expected.keySet()) - Collections.min(expected.keySet()) + 1;
    boolean applies = !expected.isEmpty() && !repeated && 4 * range <= limitBytes;
    try (Table table = table(memory, keys, ints ? ColumnType.INT32 : ColumnType.INT64)) {
      long before = memory.allocatedBytes();
      try (DenseKeyTable built = DenseKeyTable.build(KeyColumns.of(table, List.of("k"), "right"), memory,
          limitBytes)) {
        if (!applies) {
          assertNull(built, "repeated " + repeated + ", range " + range + ", keyed " + expected.size());
          assertEquals(before, memory.allocatedBytes(), "a declined build holds nothing");
          return;
        }
        assertNotNull(built, "unique keys over " + range + " values");
        assertEquals(before + built.bytes(), memory.allocatedBytes(), "the array is charged");
        List<Long> probes = new ArrayList<>();
        for (Map.Entry<Long, Integer> entry : expected.entrySet()) {
          long found = built.entryOf(entry.getKey());
          assertEquals(entry.getValue(), OpenAddressingTable.firstRow(found), "row of key " + entry.getKey());
          assertEquals(-1, OpenAddressingTable.secondRow(found));
          probes.add(entry.getKey());
        }
        long lo = Collections.min(expected.keySet());
        long hi = Collections.max(expected.keySet());
        for (long absent : new long[] {lo - 1, hi + 1, Long.MIN_VALUE, Long.MAX_VALUE, lo + 1, hi - 1, 0, -1,
            lo - (1L << 32), hi + (1L << 32)}) {
          if (!expected.containsKey(absent)) {
            assertEquals(0, built.entryOf(absent), "absent key " + absent);
            probes.add(absent);
          }
        }
        Collections.shuffle(probes, random);
        long[] values = probes.stream().mapToLong(Long::longValue).toArray();
        int[] positions = new int[values.length];
        for (int i = 0; i < positions.length; i++) {
          positions[i] = positions.length - 1 - i; // the block reads keys through the positions
        }
        long[] entries = new long[values.length];
        built.entriesOf(values, positions, values.length, entries);
        for (int i = 0; i < values.length; i++) {
          assertEquals(built.entryOf(values[positions[i]]), entries[i], "block lookup of " + values[positions[i]]);
        }
      }
    }
  }

  /** The cheap limit on a range: more keyed rows than values in the range means a repeat, unread. */
  @Example
  void moreRowsThanValuesDeclines(EngineMemory memory) {
    List<Long> keys = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      keys.add((long) (i * 7) % 100);
    }
    try (Table table = table(memory, keys, ColumnType.INT64)) {
      long before = memory.allocatedBytes();
      assertNull(DenseKeyTable.build(KeyColumns.of(table, List.of("k"), "right"), memory, Long.MAX_VALUE));
      assertEquals(before, memory.allocatedBytes());
    }
  }

  @Example
  void cancelledBuildThrowsAndHoldsNothing(EngineMemory memory) {
    List<Long> keys = new ArrayList<>();
    for (long i = 0; i < 50_000; i++) {
      keys.add(i);
    }
    try (Table table = table(memory, keys, ColumnType.INT64)) {
      long before = memory.allocatedBytes();
      CancellationToken token = new CancellationToken();
      KeyColumns columns = KeyColumns.of(table, List.of("k"), "right");
      assertThrows(QueryCancelledException.class, () -> ExecutionControl.run(null, token, 0, () -> {
        token.cancel();
        return DenseKeyTable.build(columns, memory, Long.MAX_VALUE);
      }));
      assertEquals(before, memory.allocatedBytes());
      try (DenseKeyTable built = DenseKeyTable.build(columns, memory, Long.MAX_VALUE)) {
        assertTrue(built != null && built.entryOf(49_999) == 50_000, "the same keys build when not cancelled");
      }
    }
  }

  /** The keys in several batches, so that row ids count across them. */
  private static Table table(EngineMemory memory, List<Long> keys, ColumnType type) {
    return KeyTables.of(memory, keys, type, 4_096);
  }
}
