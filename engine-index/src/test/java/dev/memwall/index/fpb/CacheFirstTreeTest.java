package dev.memwall.index.fpb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.index.IndexModelProperties;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.TreeModel;
import dev.memwall.index.disk.DiskBPlusTree;
import dev.memwall.index.disk.DiskIndex;
import dev.memwall.index.disk.DiskTreeConfig;
import dev.memwall.index.disk.DiskTreeType;
import dev.memwall.index.disktrees.DiskIndexes;
import dev.memwall.index.page.CorruptPageException;
import dev.memwall.index.page.PageFile;
import dev.memwall.index.page.PageFileFormatException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What is specific to the cache-first fpB+-tree (the model, crash, concurrency and bad-input tests
 * shared with the other tree types are in {@code dev.memwall.index.disk}): the goal-G width choice,
 * the placement after bulkload (leaf pages, aggressive node pages, overflow pages for leaf
 * parents, checked by {@link CacheFirstTree#checkInvariants}), page splits under inserts, and
 * refusing files of the other tree types.
 */
@ExtendWith(LeakCheck.class)
class CacheFirstTreeTest {
  @TempDir
  Path dir;

  static DiskTreeConfig config(int pageBytes, KeyType type) {
    return DiskIndexes.chooseConfig(type, DiskTreeType.FPB_CACHE_FIRST, pageBytes, 240, 24).withPoolFrames(64);
  }

  @ParameterizedTest
  @ValueSource(ints = {4096, 8192, 16384, 32768})
  void widthChoiceFollowsGoalG(int pageBytes) {
    CacheFirstFormat.Choice chosen = CacheFirstFormat.choose(pageBytes, 4, 4, 250, 15);
    assertTrue(chosen.cost() <= 1.10 * chosen.bestCost(), "within 10% of the best search cost");
    double best = Double.POSITIVE_INFINITY;
    // no width within the tolerance has a larger page fan-out
    for (int w = 1; w <= 32; w++) {
      int slots = Math.min(CacheFirstFormat.MAX_SLOTS, (pageBytes / 64 - 1) / w);
      int leaf = (64 * w - CacheFirstFormat.NODE_HEADER) / 8;
      int fanout = (64 * w - CacheFirstFormat.NODE_HEADER) / 10;
      if (slots < 3 || leaf < 2 || fanout < 3) {
        continue;
      }
      double levels = 1 + Math.max(0, Math.log(CacheFirstFormat.REFERENCE_ENTRIES / leaf) / Math.log(fanout));
      double cost = levels * (250 + (w - 1) * 15);
      best = Math.min(best, cost);
      if (cost <= 1.10 * chosen.bestCost()) {
        assertTrue(slots * leaf <= chosen.pageFanout(), "width " + w + " has a larger fan-out within G");
      }
    }
    assertEquals(best, chosen.bestCost(), 1e-9);
    // the thesis's Table 3.1 picks 9-15 line nodes (576 B, 960 B) for these parameters
    assertTrue(chosen.nodeLines() >= 5 && chosen.nodeLines() <= 20, "chose " + chosen);
    System.out.println(pageBytes + " B pages: " + chosen);
  }

  @ParameterizedTest
  @ValueSource(ints = {4096, 16384})
  void bulkloadPlacesLeavesOnLeafPagesAndLeafParentsOnOverflowPages(int pageBytes, EngineMemory memory) {
    int n = 200_000;
    long[] keys = new long[n];
    long[] rows = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = 3L * i;
      rows[i] = i;
    }
    try (CacheFirstTree tree = CacheFirstTree.bulkload(dir.resolve("b" + pageBytes), config(pageBytes, KeyType.INT64),
        memory, SortedEntries.of(keys, rows), 1.0)) {
      tree.checkInvariants();
      int[] byKind = tree.pagesByKind();
      CacheFirstFormat format = tree.format();
      int leaves = (n + format.leafCapacity() - 1) / format.leafCapacity();
      assertEquals((leaves + format.slots() - 1) / format.slots(), byKind[0], "leaf pages packed full");
      assertTrue(byKind[1] >= 1, "node pages");
      assertTrue(tree.height() >= 3, "height " + tree.height());
      long leafParents = (leaves + format.innerCapacity() - 1) / format.innerCapacity();
      assertTrue(byKind[2] > 0 && byKind[2] * (long) format.slots() >= leafParents / 2,
          "most leaf parents of a large tree live in overflow pages: " + byKind[2] + " overflow pages for "
              + leafParents + " leaf parents");
      RowIds out = new RowIds();
      Random random = new Random(5);
      for (int i = 0; i < 2000; i++) {
        int k = random.nextInt(n);
        out.clear();
        assertEquals(1, tree.search(3L * k, out));
        assertEquals(k, out.get(0));
        assertEquals(0, tree.search(3L * k + 1, new RowIds()));
      }
    }
  }

  @Test
  void insertsSplitLeafPagesAndNodePagesAndStayConsistent(EngineMemory memory) {
    DiskTreeConfig narrow = config(4096, KeyType.INT64).withNodeLines(2).withPoolFrames(16);
    TreeModel model = new TreeModel();
    Random random = new Random(11);
    long[] keys = new long[2000];
    long[] rows = new long[2000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = 1000L * i;
      rows[i] = i;
      model.insert(keys[i], rows[i]);
    }
    try (CacheFirstTree tree = CacheFirstTree.bulkload(dir.resolve("grow"), narrow, memory,
        SortedEntries.of(keys, rows), 1.0)) {
      int[] before = tree.pagesByKind();
      for (int i = 0; i < 30_000; i++) {
        long key = random.nextInt(2_000_000);
        tree.insert(key, i);
        model.insert(key, i);
        if (i % 1000 == 0) {
          tree.checkInvariants();
        }
        if (i % 7000 == 0) {
          tree.sync();
        }
      }
      int[] after = tree.pagesByKind();
      assertTrue(after[0] > before[0], "leaf pages split");
      assertTrue(after[1] > before[1], "node pages split");
      assertTrue(after[2] > before[2], "leaf parents overflowed");
      IndexModelProperties.assertMatches(tree, model);
    }
    try (CacheFirstTree tree = CacheFirstTree.open(dir.resolve("grow"), narrow, memory)) {
      IndexModelProperties.assertMatches(tree, model);
    }
  }

  /**
   * Seed 002 Figure 3.25's two scenarios, pages against the disk-first fpB+-tree: (a) bulkloaded
   * 100% full, (b) bulkloaded with 10% of the keys, then the other 90% inserted in random order. The
   * thesis reports under 5% for cache-first in (a) and up to 36% in (b). The total is
   * environment variable {@code MEMWALL_SPACE_KEYS} (default 200,000).
   */
  @ParameterizedTest
  @ValueSource(ints = {4096, 8192, 16384, 32768})
  void spaceAgainstDiskFirstAfterBulkloadAndAfterInserts(int pageBytes, EngineMemory memory) {
    String keys = System.getenv("MEMWALL_SPACE_KEYS");
    int total = keys == null ? 200_000 : Integer.parseInt(keys);
    long[] all = new long[total];
    Random random = new Random(pageBytes);
    for (int i = 0; i < total; i++) {
      all[i] = random.nextLong() >>> 20;
    }
    java.util.Arrays.sort(all);
    long[] rows = new long[total];
    java.util.Arrays.setAll(rows, i -> i);
    int tenth = total / 10;
    long[] bulk = new long[tenth];
    long[] bulkRows = new long[tenth];
    long[] later = new long[total - tenth];
    for (int i = 0, b = 0, l = 0; i < total; i++) {
      if (i % 10 == 0 && b < tenth) {
        bulk[b] = all[i];
        bulkRows[b++] = i;
      } else {
        later[l++] = all[i];
      }
    }
    for (int i = later.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      long t = later[i];
      later[i] = later[j];
      later[j] = t;
    }
    DiskTreeConfig cache = config(pageBytes, KeyType.INT64).withPoolFrames(1024);
    DiskTreeConfig disk = cache.withTreeType(DiskTreeType.FPB_DISK_FIRST);
    long[] full = new long[2];
    long[] grown = new long[2];
    int k = 0;
    for (DiskTreeConfig c : new DiskTreeConfig[] {disk, cache}) {
      try (DiskIndex tree = DiskIndexes.bulkload(dir.resolve("full" + k), c, memory, SortedEntries.of(all, rows), 1.0)) {
        full[k] = usedPages(tree);
      }
      try (DiskIndex tree = DiskIndexes.bulkload(dir.resolve("grown" + k), c, memory,
          SortedEntries.of(bulk, bulkRows), 1.0)) {
        for (int i = 0; i < later.length; i++) {
          tree.insert(later[i], i);
        }
        tree.sync();
        assertEquals(total, tree.size());
        grown[k] = usedPages(tree);
        if (c == cache) {
          tree.checkInvariants();
          int[] kinds = ((CacheFirstTree) tree).pagesByKind();
          System.out.printf("  cache-first after inserts: %d leaf, %d node, %d overflow pages%n", kinds[0], kinds[1],
              kinds[2]);
        }
      }
      k++;
    }
    System.out.printf("%d B pages, %d keys: bulkloaded disk-first %d, cache-first %d pages (%+.1f%%); 10%% bulkload"
        + " + 90%% inserts: disk-first %d, cache-first %d pages (%+.1f%%)%n", pageBytes, total, full[0], full[1],
        100.0 * (full[1] - full[0]) / full[0], grown[0], grown[1], 100.0 * (grown[1] - grown[0]) / grown[0]);
    assertTrue(full[1] <= full[0] * 1.10, "a full bulkload costs about the pages of disk-first");
    assertTrue(grown[1] <= grown[0] * 1.60, "inserts keep cache-first within the thesis's order of overhead");
  }

  /** Pages the committed tree occupies (its map included), after a sync. */
  private static long usedPages(DiskIndex tree) {
    tree.sync();
    int free = tree instanceof CacheFirstTree cf ? cf.freePages() : ((DiskBPlusTree) tree).freePages();
    return tree.filePages() - free - PageFile.FIRST_DATA_PAGE;
  }

  @Test
  void filesOfOtherLayoutsAndForeignFilesAreRefusedUntouched(EngineMemory memory) throws IOException {
    Path disk = dir.resolve("disk-first");
    DiskTreeConfig cache = config(4096, KeyType.INT64);
    DiskBPlusTree.create(disk, cache.withTreeType(DiskTreeType.FPB_DISK_FIRST), memory).close();
    byte[] before = Files.readAllBytes(disk);
    PageFileFormatException e = assertThrows(PageFileFormatException.class, () -> CacheFirstTree.open(disk, cache,
        memory));
    assertTrue(e.getMessage().contains("FPB_DISK_FIRST"), e.getMessage());
    assertArrayEquals(before, Files.readAllBytes(disk));

    Path cf = dir.resolve("cache-first");
    try (DiskIndex tree = DiskIndexes.create(cf, cache, memory)) {
      tree.insert(1, 1);
    }
    byte[] cfBefore = Files.readAllBytes(cf);
    PageFileFormatException other = assertThrows(PageFileFormatException.class,
        () -> DiskIndexes.open(cf, cache.withTreeType(DiskTreeType.SLOTTED), memory));
    assertTrue(other.getMessage().contains("FPB_CACHE_FIRST"), other.getMessage());
    assertThrows(PageFileFormatException.class, () -> CacheFirstTree.open(cf, config(4096, KeyType.INT32), memory));
    assertThrows(IllegalArgumentException.class,
        () -> CacheFirstTree.create(dir.resolve("wrong"), cache.withTreeType(DiskTreeType.SLOTTED), memory));
    assertArrayEquals(cfBefore, Files.readAllBytes(cf));

    Path bare = dir.resolve("bare");
    PageFile.create(bare, 4096, 100).close();
    assertThrows(PageFileFormatException.class, () -> CacheFirstTree.open(bare, cache, memory));
    assertThrows(IllegalArgumentException.class, () -> CacheFirstTree.create(dir.resolve("too-wide"),
        cache.withNodeLines(32), memory), "one 32-line node per 4 KiB page is refused");
    assertTrue(!Files.exists(dir.resolve("too-wide")));
  }

  @Test
  void corruptMapPageIsReportedOnOpen(EngineMemory memory) throws IOException {
    Path file = dir.resolve("map");
    DiskTreeConfig c = config(4096, KeyType.INT64);
    long[] keys = new long[5000];
    long[] rows = new long[5000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i;
      rows[i] = i;
    }
    int mapPage;
    try (CacheFirstTree tree = CacheFirstTree.bulkload(file, c, memory, SortedEntries.of(keys, rows), 1.0)) {
      mapPage = tree.filePages() - 1; // the map is written last, after every tree page
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek((long) mapPage * 4096 + 100);
      int b = raf.read();
      raf.seek((long) mapPage * 4096 + 100);
      raf.write(b ^ 0x01);
    }
    CorruptPageException e = assertThrows(CorruptPageException.class, () -> CacheFirstTree.open(file, c, memory));
    assertEquals(mapPage, e.page());
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
  }
}
