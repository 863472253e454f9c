package dev.memwall.join.prefetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The bucket table of one partition: its size against the partition count, its cell arrays, its lookups by code. */
@ExtendWith(LeakCheck.class)
class BucketTableTest {
  @Test
  void tableSizeIsCoprimeWithThePartitionCount() {
    for (int k = 1; k <= 300; k++) {
      for (int n : new int[] {0, 1, 2, 15, 16, 1000, 4095}) {
        int t = BucketTable.tableSize(n, k);
        assertTrue(t >= Math.max(3, n), t + " < " + n);
        assertEquals(1, BucketTable.gcd(t, k), t + " and " + k);
      }
    }
    assertEquals(7, BucketTable.tableSize(6, 15)); // 7 is coprime with 15
    assertEquals(11, BucketTable.tableSize(9, 15)); // 9 shares 3, 11 does not
  }

  @Test
  void cellArraysDoubleFromTwo() {
    assertEquals(List.of(0, 2, 2, 4, 4, 8, 8, 8, 8, 16), java.util.stream.IntStream.range(0, 10)
        .map(BucketTable::capacity).boxed().toList());
  }

  @Test
  void tableFindsEveryTupleOfACrowdedBucketByCode(EngineMemory memory) {
    try (BucketTable table = new BucketTable(memory)) {
      int n = 100;
      var space = table.tupleSpace(n);
      for (int i = 0; i < n; i++) {
        int code = i % 3 == 0 ? 42 : i * 7919; // a third share one code, so one bucket grows its cell array
        space.set(SpillRecords.INT, i * 16L, code);
        space.set(SpillRecords.INT, i * 16L + 4, i);
        space.set(SpillRecords.LONG, i * 16L + 8, i);
      }
      table.build(n, 4);
      long header = table.header(42);
      int count = table.headers.get(SpillRecords.INT, header);
      assertTrue(count >= (n + 2) / 3, "bucket holds every tuple of code 42 (and maybe colliding codes): " + count);
      int found = table.headers.get(SpillRecords.INT, header + 4) == 42 ? 1 : 0;
      long cell = table.headers.get(SpillRecords.INT, header + 12) * 8L;
      for (int c = 0; c < count - 1; c++, cell += 8) {
        if (table.cells.get(SpillRecords.INT, cell) == 42) {
          found++;
          assertEquals(0, table.cells.get(SpillRecords.INT, cell + 4) % 3, "cell points at a tuple of code 42");
        }
      }
      assertEquals((n + 2) / 3, found);
    }
  }
}
