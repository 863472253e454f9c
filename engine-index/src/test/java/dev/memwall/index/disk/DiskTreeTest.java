package dev.memwall.index.disk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.index.IndexModelProperties;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.TreeModel;
import dev.memwall.index.disktrees.DiskIndexes;
import dev.memwall.index.page.CorruptPageException;
import dev.memwall.index.page.PageFile;
import dev.memwall.index.page.PageFileFormatException;
import dev.memwall.index.page.PageFileFullException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@ExtendWith(LeakCheck.class)
class DiskTreeTest {
  @TempDir
  Path dir;

  static DiskTreeConfig config(DiskTreeType treeType, KeyType type) {
    return DiskIndexes.chooseConfig(type, treeType, 4096, 240, 24).withPoolFrames(64);
  }

  @ParameterizedTest
  @EnumSource(DiskTreeType.class)
  void manyRandomUpdatesGrowTheTreeAndMatchTheModel(DiskTreeType treeType, EngineMemory memory) {
    Path file = dir.resolve("big");
    TreeModel model = new TreeModel();
    Random random = new Random(42);
    try (DiskIndex tree = DiskIndexes.create(file, config(treeType, KeyType.INT64), memory)) {
      for (int i = 0; i < 60_000; i++) {
        long key = random.nextInt(40_000) * 7919L;
        if (i % 4 == 3 && model.size() > 0) {
          long row = random.nextInt(i);
          assertEquals(model.delete(key, row), tree.delete(key, row));
        } else {
          tree.insert(key, i);
          model.insert(key, i);
        }
        if (i % 5000 == 0) {
          tree.sync();
        }
      }
      assertTrue(tree.height() >= 2, "45k entries in 4 KiB pages need more than one level");
      IndexModelProperties.assertMatches(tree, model);
    }
    try (DiskIndex tree = DiskIndexes.open(file, config(treeType, KeyType.INT64), memory)) {
      IndexModelProperties.assertMatches(tree, model);
    }
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {4096, 8192, 16384, 32768})
  void pageCapacitiesFollowTheChosenLayouts(int pageBytes, EngineMemory memory) {
    DiskTreeConfig c = DiskIndexes.chooseConfig(KeyType.INT64, DiskTreeType.FPB_DISK_FIRST, pageBytes, 240, 24);
    InPageWidths widths = InPageWidths.choose(pageBytes, 8, 8, 240, 24);
    assertEquals(widths.nonLeafLines(), c.nonLeafLines());
    assertEquals(widths.leafLines(), c.leafLines());
    try (DiskBPlusTree fpb = DiskBPlusTree.create(dir.resolve("f" + pageBytes), c.withPoolFrames(16), memory);
        DiskBPlusTree slotted = DiskBPlusTree.create(dir.resolve("s" + pageBytes),
            c.withTreeType(DiskTreeType.SLOTTED).withPoolFrames(16), memory)) {
      assertEquals(widths.pageFanout(), fpb.leafFormat().capacity());
      assertEquals((pageBytes - 64) / (8 + 8 + 2), slotted.leafFormat().capacity());
      assertTrue(fpb.innerFormat().capacity() > fpb.leafFormat().capacity(), "4-byte child ids: more per page");
    }
  }

  @ParameterizedTest
  @EnumSource(DiskTreeType.class)
  void bulkloadedTreeReopensAndScans(DiskTreeType treeType, EngineMemory memory) {
    Path file = dir.resolve("bulk");
    int n = 50_000;
    long[] keys = new long[n];
    long[] rows = new long[n];
    TreeModel model = new TreeModel();
    for (int i = 0; i < n; i++) {
      keys[i] = Integer.MIN_VALUE + (long) i / 3 * 5; // every key three times, from the int32 minimum
      rows[i] = i;
      model.insert(keys[i], rows[i]);
    }
    try (DiskIndex tree = DiskIndexes.bulkload(file, config(treeType, KeyType.INT32), memory,
        SortedEntries.of(keys, rows), 0.7)) {
      IndexModelProperties.assertMatches(tree, model);
    }
    try (DiskIndex tree = DiskIndexes.open(file, config(treeType, KeyType.INT32), memory)) {
      IndexModelProperties.assertMatches(tree, model);
      IndexModelProperties.checkScan(tree, model, keys[100], keys[40_000], 12);
    }
  }

  @Test
  void badInputIsRefusedBeforeAnythingChanges(EngineMemory memory) throws IOException {
    Path file = dir.resolve("bad");
    DiskTreeConfig int32 = config(DiskTreeType.FPB_DISK_FIRST, KeyType.INT32);
    assertThrows(IllegalArgumentException.class, () -> DiskBPlusTree.bulkload(file, int32, memory,
        SortedEntries.of(new long[] {3, 1}, new long[] {0, 1}), 1.0));
    assertFalse(Files.exists(file), "a refused bulkload leaves no file");
    assertThrows(IllegalArgumentException.class, () -> DiskBPlusTree.bulkload(file, int32, memory,
        SortedEntries.of(new long[] {1L << 40}, new long[] {0}), 1.0));
    assertThrows(IllegalArgumentException.class, () -> DiskBPlusTree.bulkload(file, int32, memory,
        SortedEntries.of(new long[] {1}, new long[] {0}), 1.5));
    try (DiskBPlusTree tree = DiskBPlusTree.create(file, int32, memory)) {
      tree.insert(5, 50);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> tree.insert(1L << 33, 1));
      assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
      assertEquals(1, tree.size());
      // lookups find nothing for keys outside the type, and scans clamp their bounds to it
      assertEquals(0, tree.search(1L << 33, new RowIds()));
      int[] offsets = new int[3];
      RowIds out = new RowIds();
      tree.lookupBatch(new long[] {5, 1L << 33}, 2, offsets, out);
      assertArrayEquals(new int[] {0, 1, 1}, offsets);
      long[] rows = new long[4];
      assertEquals(1, tree.scan(Long.MIN_VALUE, Long.MAX_VALUE).next(rows));
      assertEquals(50, rows[0]);
    }
    byte[] before = Files.readAllBytes(file);
    PageFileFormatException other = assertThrows(PageFileFormatException.class,
        () -> DiskBPlusTree.open(file, int32.withTreeType(DiskTreeType.SLOTTED), memory));
    assertTrue(other.getMessage().contains("FPB_DISK_FIRST"), other.getMessage());
    assertThrows(PageFileFormatException.class,
        () -> DiskBPlusTree.open(file, config(DiskTreeType.FPB_DISK_FIRST, KeyType.INT64), memory));
    assertThrows(PageFileFormatException.class, () -> DiskBPlusTree.open(file,
        DiskIndexes.chooseConfig(KeyType.INT32, DiskTreeType.FPB_DISK_FIRST, 8192, 240, 24), memory));
    assertArrayEquals(before, Files.readAllBytes(file), "refused opens leave the file as it was");

    Path bare = dir.resolve("bare");
    PageFile.create(bare, 4096, 100).close();
    assertThrows(PageFileFormatException.class, () -> DiskBPlusTree.open(bare, int32, memory));
    Path text = dir.resolve("text");
    Files.writeString(text, "hello, this is a text file and not a tree at all");
    assertThrows(PageFileFormatException.class, () -> DiskBPlusTree.open(text, int32, memory));
    assertEquals("hello, this is a text file and not a tree at all", Files.readString(text));
  }

  @ParameterizedTest
  @EnumSource(DiskTreeType.class)
  void fullFileRefusesTheInsertAndKeepsTheTree(DiskTreeType treeType, EngineMemory memory) {
    Path file = dir.resolve("full");
    TreeModel model = new TreeModel();
    DiskTreeConfig config = config(treeType, KeyType.INT64).withMaxPages(40);
    try (DiskIndex tree = DiskIndexes.create(file, config, memory)) {
      PageFileFullException full = null;
      for (int i = 0; i < 1_000_000 && full == null; i++) {
        try {
          tree.insert(i * 3L, i);
          model.insert(i * 3L, i);
        } catch (PageFileFullException e) {
          full = e;
        }
        if (i % 1000 == 0 && full == null) {
          tree.sync();
        }
      }
      assertTrue(full != null && full.getMessage().contains("full"), "a 40-page file must fill up");
      IndexModelProperties.assertMatches(tree, model); // the refused insert changed nothing
      assertTrue(tree.delete(0, 0));
      model.delete(0, 0);
    }
    try (DiskIndex tree = DiskIndexes.open(file, config, memory)) {
      IndexModelProperties.assertMatches(tree, model);
    }
  }

  @ParameterizedTest
  @EnumSource(DiskTreeType.class)
  void corruptedPageIsReportedWithFileAndPage(DiskTreeType treeType, EngineMemory memory) throws IOException {
    Path file = dir.resolve("corrupt");
    int n = 20_000;
    long[] keys = new long[n];
    long[] rows = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = i;
      rows[i] = i;
    }
    DiskTreeConfig config = config(treeType, KeyType.INT64);
    DiskIndexes.bulkload(file, config, memory, SortedEntries.of(keys, rows), 1.0).close();
    int page = PageFile.FIRST_DATA_PAGE + 2; // a leaf page: bulkload writes the leaves first
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek((long) page * 4096 + 2000);
      int b = raf.read();
      raf.seek((long) page * 4096 + 2000);
      raf.write(b ^ 0x10);
    }
    try (DiskIndex tree = DiskIndexes.open(file, config, memory)) {
      CorruptPageException e = assertThrows(CorruptPageException.class, () -> {
        RowIds out = new RowIds();
        for (int i = 0; i < n; i++) {
          tree.search(i, out);
        }
      });
      assertEquals(page, e.page());
      assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
      RowIds out = new RowIds();
      assertEquals(1, tree.search(0, out), "pages before the corrupt one still read");
    }
  }
}
