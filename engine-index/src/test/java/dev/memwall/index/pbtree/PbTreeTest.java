package dev.memwall.index.pbtree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.vector.Column;
import dev.memwall.index.IndexModelProperties;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.TestProfiles;
import dev.memwall.index.TreeModel;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LeakCheck.class)
class PbTreeTest {
  private static final PbTreeConfig INT32 = PbTreeConfig.fromProfile(TestProfiles.vm(), KeyType.INT32, 1000);
  private static final PbTreeConfig INT64 = PbTreeConfig.fromProfile(TestProfiles.vm(), KeyType.INT64, 1000);

  @Test
  void int32TreeRefusesKeysOutsideInt32AndStaysUnchanged(EngineMemory memory) {
    try (PrefetchingBPlusTree tree = PrefetchingBPlusTree.create(memory, INT32)) {
      tree.insert(Integer.MAX_VALUE, 1);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> tree.insert(1L << 40, 2));
      assertTrue(e.getMessage().contains("INT32"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> tree.search(Integer.MIN_VALUE - 1L, new RowIds()));
      assertThrows(IllegalArgumentException.class, () -> tree.scan(0, Long.MAX_VALUE));
      assertThrows(IllegalArgumentException.class,
          () -> tree.lookupBatch(new long[] {1, 1L << 33}, 2, new int[3], new RowIds()));
      assertEquals(1, tree.size());
      tree.checkInvariants();
    }
  }

  @Test
  void unsortedBulkloadIsRefusedBeforeAnyAllocation(EngineMemory memory) {
    SortedEntries unsorted = SortedEntries.of(new long[] {1, 3, 2}, new long[] {0, 1, 2});
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PrefetchingBPlusTree.bulkload(memory, INT64, unsorted, 1.0));
    assertTrue(e.getMessage().contains("not sorted") && e.getMessage().contains("position 2"), e.getMessage());
    assertEquals(0, memory.allocatedBytes());
    SortedEntries tooWide = SortedEntries.of(new long[] {1, 1L << 40}, new long[] {0, 1});
    assertThrows(IllegalArgumentException.class, () -> PrefetchingBPlusTree.bulkload(memory, INT32, tooWide, 1.0));
    assertThrows(IllegalArgumentException.class,
        () -> PrefetchingBPlusTree.bulkload(memory, INT64, SortedEntries.of(new long[] {1}, new long[] {1}), 0));
    assertThrows(IllegalArgumentException.class,
        () -> PrefetchingBPlusTree.bulkload(memory, INT64, SortedEntries.of(new long[] {1}, new long[] {1}), 1.5));
    assertEquals(0, memory.allocatedBytes());
  }

  @Test
  void bulkloadFromAnUnsortedArrowColumnUsesRowIndexesAsRowIds(EngineMemory memory) {
    Random random = new Random(5);
    int rows = 5000;
    try (IntVector vector = new IntVector("k", memory.arrow())) {
      vector.allocateNew(rows);
      TreeModel model = new TreeModel();
      for (int row = 0; row < rows; row++) {
        int key = switch (row % 7) {
          case 0 -> Integer.MIN_VALUE;
          case 1 -> Integer.MAX_VALUE;
          default -> random.nextInt(300) - 150;
        };
        vector.set(row, key);
        model.insert(key, row);
      }
      vector.setValueCount(rows);
      try (PrefetchingBPlusTree tree = PrefetchingBPlusTree.bulkload(memory, INT32, Column.of(vector, null), 0.7)) {
        IndexModelProperties.assertMatches(tree, model);
      }
    }
  }

  @Test
  void wrongKeyColumnTypeAndNullKeysAreRefused(EngineMemory memory) {
    try (BigIntVector longs = new BigIntVector("wide", memory.arrow());
        IntVector ints = new IntVector("narrow", memory.arrow())) {
      longs.allocateNew(2);
      longs.set(0, 1);
      longs.set(1, 2);
      longs.setValueCount(2);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> PrefetchingBPlusTree.bulkload(memory, INT32, Column.of(longs, null), 1.0));
      assertTrue(e.getMessage().contains("'wide'") && e.getMessage().contains("INT32"), e.getMessage());
      ints.allocateNew(3);
      ints.set(0, 1);
      ints.setNull(1);
      ints.set(2, 3);
      ints.setValueCount(3);
      e = assertThrows(IllegalArgumentException.class,
          () -> PrefetchingBPlusTree.bulkload(memory, INT32, Column.of(ints, null), 1.0));
      assertTrue(e.getMessage().contains("null key at row 1"), e.getMessage());
      assertEquals(0, memory.allocatedBytes() - longs.getDataBuffer().capacity() - longs.getValidityBuffer()
          .capacity() - ints.getDataBuffer().capacity() - ints.getValidityBuffer().capacity(),
          "no tree memory stays allocated");
    }
  }

  @Test
  void exceedingTheBudgetFailsCleanly() {
    try (EngineMemory small = EngineMemory.create(MemoryBudget.of("small", 64 * 1024))) {
      long[] keys = new long[100_000];
      long[] rows = new long[keys.length];
      for (int i = 0; i < keys.length; i++) {
        keys[i] = i;
        rows[i] = i;
      }
      assertThrows(BudgetExceededException.class,
          () -> PrefetchingBPlusTree.bulkload(small, INT64, SortedEntries.of(keys, rows), 1.0));
      assertEquals(0, small.allocatedBytes());
      try (PrefetchingBPlusTree tree = PrefetchingBPlusTree.create(small, INT64.withJumpPointers(JumpPointers.NONE))) {
        assertThrows(BudgetExceededException.class, () -> {
          for (int i = 0; i < keys.length; i++) {
            tree.insert(i, i);
          }
        });
        tree.checkInvariants(); // the insert that failed to grow the pool changed nothing
      }
      assertEquals(0, small.allocatedBytes());
    }
  }

  @Test
  void closedTreeAndModifiedScanFailClearly(EngineMemory memory) {
    PrefetchingBPlusTree tree = PrefetchingBPlusTree.create(memory, INT64);
    for (int i = 0; i < 100; i++) {
      tree.insert(i, i);
    }
    PrefetchingBPlusTree.RangeScan scan = tree.scan(0, 99);
    long[] rows = new long[10];
    assertEquals(10, scan.next(rows));
    tree.insert(5, 5);
    assertThrows(ConcurrentModificationException.class, () -> scan.next(rows));
    tree.close();
    tree.close();
    assertThrows(IllegalStateException.class, () -> tree.search(1, new RowIds()));
    assertThrows(IllegalStateException.class, () -> tree.insert(1, 1));
  }

  @Test
  void autoPrefetchFollowsTheEstimatedRangeSize(EngineMemory memory) {
    long[] keys = new long[100_000];
    long[] rows = new long[keys.length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = 2L * i;
      rows[i] = i;
    }
    for (JumpPointers kind : List.of(JumpPointers.EXTERNAL, JumpPointers.INTERNAL)) {
      try (PrefetchingBPlusTree tree = PrefetchingBPlusTree.bulkload(memory, INT64.withJumpPointers(kind),
          SortedEntries.of(keys, rows), 1.0)) {
        PrefetchingBPlusTree.RangeScan small = tree.scan(1000, 1020);
        assertFalse(small.prefetching(), "11 entries: " + small.estimatedEntries());
        PrefetchingBPlusTree.RangeScan large = tree.scan(1000, 41_000);
        assertTrue(large.prefetching(), "20001 entries: " + large.estimatedEntries());
        assertTrue(large.estimatedEntries() > 10_000 && large.estimatedEntries() < 40_000,
            "estimate " + large.estimatedEntries());
        long[] out = new long[4096];
        long total = 0;
        long expected = 500;
        for (int got; (got = large.next(out)) > 0; total += got) {
          for (int i = 0; i < got; i++) {
            assertEquals(expected++, out[i]);
          }
        }
        assertEquals(20_001, total);
      }
    }
  }

  @Test
  void nodeFormatPutsKeysBeforePointersAndFillsTheLines() {
    NodeFormat one64 = new NodeFormat(KeyType.INT64, 1);
    assertEquals(5, one64.fanout());
    assertEquals(3, one64.leafEntries());
    NodeFormat one32 = new NodeFormat(KeyType.INT32, 1);
    assertEquals(7, one32.fanout());
    assertEquals(4, one32.leafEntries());
    NodeFormat eight = new NodeFormat(KeyType.INT64, 8);
    assertEquals(8 + 8L * eight.innerKeys(), eight.childOffset());
    assertTrue(eight.childOffset() + 4L * eight.fanout() <= 512);
    assertTrue(eight.rowIdOffset() + 8L * eight.leafEntries() <= 512);
    assertEquals(0, eight.rowIdOffset() % 8);
    assertThrows(IllegalArgumentException.class, () -> new NodeFormat(KeyType.INT64, 0));
    assertThrows(IllegalArgumentException.class, () -> new NodeFormat(KeyType.INT64, 65));
  }

  @Test
  void widthModelFollowsTheMachine() {
    int vm = NodeWidthModel.optimalWidth(TestProfiles.of(240, 24, 10), KeyType.INT64, 10_000_000);
    int noOverlap = NodeWidthModel.optimalWidth(TestProfiles.of(240, 240, 10), KeyType.INT64, 10_000_000);
    int wideBus = NodeWidthModel.optimalWidth(TestProfiles.of(240, 4, 10), KeyType.INT64, 10_000_000);
    assertTrue(noOverlap <= 2, "without overlapped misses wide nodes cannot pay: " + noOverlap);
    assertTrue(vm > noOverlap && vm <= 16, "B = 10: " + vm);
    assertTrue(wideBus >= vm, "B = 60 favours wider nodes: " + wideBus + " vs " + vm);
    List<NodeWidthModel.Estimate> sweep = NodeWidthModel.sweep(TestProfiles.vm(), KeyType.INT64, 10_000_000, 16);
    assertEquals(16, sweep.size());
    assertTrue(sweep.get(0).levels() > sweep.get(7).levels(), "wider nodes, fewer levels");
    assertEquals(3, NodeWidthModel.prefetchDistance(TestProfiles.of(240, 24, 10), 4)); // ceil(10 / 4)
    assertEquals(2, NodeWidthModel.chunkLines(TestProfiles.of(240, 24, 10))); // ceil(10 / 8)
    assertThrows(IllegalArgumentException.class,
        () -> NodeWidthModel.sweep(TestProfiles.of(240, 0, 10), KeyType.INT64, 10, 4));
  }
}
