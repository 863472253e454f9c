package dev.memwall.index.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.temporal.LayoutKind;
import dev.memwall.core.temporal.ReferenceTable;
import dev.memwall.core.temporal.TemporalLayout;
import dev.memwall.index.KeyType;
import dev.memwall.index.disk.DiskIndex;
import dev.memwall.index.disk.DiskTreeType;
import dev.memwall.index.disktrees.DiskIndexes;
import dev.memwall.index.page.CorruptPageException;
import dev.memwall.index.page.PageFileFormatException;
import dev.memwall.index.page.PageFileFullException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The page-file table's pages read per query, its persistence, and every fault ending in a named
 * exception: a crash (closing without a commit), an index left behind by a crash, corrupt pages,
 * files that are not this table's, a full file, use after close. Every byte is given back.
 */
@ExtendWith(LeakCheck.class)
class PagedTemporalTableTest {
  private static final TemporalFileConfig SMALL = PagedTemporalTableProperties.SMALL;
  private static final int ATTRIBUTES = 8;

  @TempDir
  Path dir;

  /** Entity {@code surrogate}'s {@code versions} versions of 8 attributes in which only the first changes. */
  private static void appendVersions(TemporalLayout table, ReferenceTable reference, long surrogate, int versions) {
    for (int v = 0; v < versions; v++) {
      long[] values = new long[ATTRIBUTES];
      values[0] = v;
      values[1] = surrogate;
      table.append(surrogate, v, values);
      if (reference != null) {
        reference.append(surrogate, v, values);
      }
    }
  }

  @Test
  void pagesReadFollowTheLayoutAndEntitiesSharePages(EngineMemory memory) {
    Map<LayoutKind, int[]> pages = new EnumMap<>(LayoutKind.class);
    for (LayoutKind kind : LayoutKind.values()) {
      try (PagedTemporalTable table = PagedTemporalTable.create(dir.resolve(kind.name()), kind, ATTRIBUTES, SMALL,
          memory)) {
        appendVersions(table, null, 1, 100);
        table.attributeHistory(1, ATTRIBUTES - 1);
        int constant = table.lastQueryPages();
        table.history(1);
        int history = table.lastQueryPages();
        for (long s = 2; s < 202; s++) {
          appendVersions(table, null, s, 1);
        }
        table.snapshot(0);
        int snapshot = table.lastQueryPages();
        pages.put(kind, new int[] {constant, history, snapshot, table.dataPages()});
      }
    }
    // a page holds 4096 - 24 bytes: 509 longs, one of them a record's header
    assertEquals(2, pages.get(LayoutKind.NSM)[0], "NSM's 100 rows of 10 longs fill two pages: " + pages);
    assertEquals(1, pages.get(LayoutKind.TDSM)[0], "one triple of the constant attribute");
    assertEquals(1, pages.get(LayoutKind.PSP)[0], "the sub-page of 100 versions fits one page");
    assertEquals(2, pages.get(LayoutKind.NSM)[1]);
    assertEquals(ATTRIBUTES, pages.get(LayoutKind.TDSM)[1], "a history joins every attribute's sub-relation");
    assertEquals(1, pages.get(LayoutKind.PSP)[1]);
    for (LayoutKind kind : LayoutKind.values()) {
      int[] p = pages.get(kind);
      assertEquals(p[3], p[2], kind + ": a snapshot reads every data page");
      assertTrue(p[3] < 201 / 4, kind + ": 200 entities of one version share pages: " + p[3]);
    }
    assertTrue(pages.get(LayoutKind.NSM)[3] < pages.get(LayoutKind.PSP)[3], "an NSM row is smaller than a sub-page");
  }

  @Test
  void pageSplitsAndOverflowChainsKeepEveryVersion(EngineMemory memory) {
    for (LayoutKind kind : LayoutKind.values()) {
      ReferenceTable reference = new ReferenceTable(ATTRIBUTES);
      Path path = dir.resolve(kind.name());
      try (PagedTemporalTable table = PagedTemporalTable.create(path, kind, ATTRIBUTES, SMALL, memory)) {
        for (int round = 0; round < 150; round++) { // 40 entities share pages and grow together until they split
          for (long s = 0; s < 40; s++) {
            long[] values = new long[ATTRIBUTES];
            values[0] = round;
            values[(int) (s % ATTRIBUTES)] = s * round;
            table.append(s, round, values);
            reference.append(s, round, values);
          }
          if (round % 50 == 49) {
            table.sync();
          }
        }
        appendVersions(table, reference, 1000, 400); // longer than a page in every layout
        assertTrue(table.dataPages() > 10, kind + " holds " + table.dataPages() + " pages");
        checkAll(reference, table, 41);
      }
      try (PagedTemporalTable table = PagedTemporalTable.open(path, SMALL, memory)) {
        checkAll(reference, table, 41);
      }
    }
  }

  private static void checkAll(ReferenceTable reference, TemporalLayout table, int entities) {
    assertEquals(entities, table.entities());
    for (long s : new long[] {0, 7, 39, 1000, 5000}) {
      assertEquals(reference.history(s), table.history(s), table.kind() + " history of " + s);
      for (int a = 0; a < ATTRIBUTES; a++) {
        assertEquals(reference.attributeHistory(s, a), table.attributeHistory(s, a), table.kind() + " " + s + "." + a);
      }
    }
    for (long t : new long[] {-1, 0, 75, 149, 399}) {
      assertEquals(Arrays.toString(reference.snapshot(t).values()), Arrays.toString(table.snapshot(t).values()),
          table.kind() + " at " + t);
    }
  }

  @ParameterizedTest
  @EnumSource(LayoutKind.class)
  void aCrashReopensAtTheLastCommitAndTheTableGoesOn(LayoutKind kind, EngineMemory memory) {
    Path path = dir.resolve("t");
    ReferenceTable committed = new ReferenceTable(ATTRIBUTES);
    PagedTemporalTable table = PagedTemporalTable.create(path, kind, ATTRIBUTES, SMALL, memory);
    for (long s = 0; s < 30; s++) {
      appendVersions(table, committed, s, 20);
    }
    table.sync();
    for (long s = 0; s < 60; s++) { // changes committed pages and adds entities, then crashes
      table.append(s, 1000, new long[ATTRIBUTES]);
    }
    table.closeWithoutSync();
    assertEquals(0, memory.allocatedBytes());
    try (PagedTemporalTable reopened = PagedTemporalTable.open(path, SMALL, memory)) {
      checkAll(committed, reopened, 30);
      appendVersions(reopened, committed, 77, 3);
      reopened.append(0, 1000, new long[ATTRIBUTES]);
      committed.append(0, 1000, new long[ATTRIBUTES]);
    }
    try (PagedTemporalTable reopened = PagedTemporalTable.open(path, SMALL, memory)) {
      checkAll(committed, reopened, 31);
      assertEquals(committed.history(77), reopened.history(77));
    }
  }

  @Test
  void anIndexThatACrashLeftBehindIsCompletedOnOpen(EngineMemory memory) throws IOException {
    Path path = dir.resolve("t");
    Path index = PagedTemporalTable.indexPath(path);
    ReferenceTable reference = new ReferenceTable(ATTRIBUTES);
    try (PagedTemporalTable table = PagedTemporalTable.create(path, LayoutKind.PSP, ATTRIBUTES, SMALL, memory)) {
      appendVersions(table, reference, 5, 3);
      table.sync();
      Files.copy(index, dir.resolve("old-index"));
      for (long s = 6; s < 50; s++) {
        appendVersions(table, reference, s, 2);
      }
    }
    // the data file committed 45 entities, the index only the first: a crash between the two commits
    Files.copy(dir.resolve("old-index"), index, StandardCopyOption.REPLACE_EXISTING);
    try (PagedTemporalTable table = PagedTemporalTable.open(path, SMALL, memory)) {
      checkAll(reference, table, 45);
      assertEquals(reference.history(49), table.history(49));
    }
    try (DiskIndex tree = DiskIndexes.open(index, DiskIndexes.chooseConfig(KeyType.INT64, DiskTreeType.SLOTTED, 4096,
        240, 24).withPoolFrames(8), memory)) {
      assertEquals(45, tree.size(), "the completed index was committed");
      assertEquals(44, tree.searchFirst(49, -1));
    }
  }

  @Test
  void anIndexOfAnotherTableOrAFileOfAnotherKindIsRefusedByName(EngineMemory memory) throws IOException {
    Path small = dir.resolve("small");
    Path large = dir.resolve("large");
    try (PagedTemporalTable a = PagedTemporalTable.create(small, LayoutKind.NSM, 2, SMALL, memory);
        PagedTemporalTable b = PagedTemporalTable.create(large, LayoutKind.NSM, 2, SMALL, memory)) {
      a.append(1, 0, 1, 1);
      for (long s = 0; s < 10; s++) {
        b.append(s, 0, s, s);
      }
    }
    Files.copy(PagedTemporalTable.indexPath(large), PagedTemporalTable.indexPath(small),
        StandardCopyOption.REPLACE_EXISTING);
    PageFileFormatException other = assertThrows(PageFileFormatException.class,
        () -> PagedTemporalTable.open(small, SMALL, memory));
    assertTrue(other.getMessage().contains("not this table's index"), other.getMessage());
    Path tree = dir.resolve("tree");
    DiskIndexes.create(tree, DiskIndexes.chooseConfig(KeyType.INT64, DiskTreeType.SLOTTED, 4096, 240, 24)
        .withPoolFrames(8), memory).close();
    PageFileFormatException notTable = assertThrows(PageFileFormatException.class,
        () -> PagedTemporalTable.open(tree, SMALL, memory));
    assertTrue(notTable.getMessage().contains("not a memwall temporal table"), notTable.getMessage());
    assertThrows(PageFileFormatException.class,
        () -> PagedTemporalTable.open(large, new TemporalFileConfig(8192, 8, 100), memory), "another page size");
    assertThrows(java.io.UncheckedIOException.class,
        () -> PagedTemporalTable.create(large, LayoutKind.PSP, 2, SMALL, memory), "the file exists");
    assertThrows(IllegalArgumentException.class,
        () -> PagedTemporalTable.create(dir.resolve("none"), LayoutKind.PSP, 0, SMALL, memory));
    assertFalse(Files.exists(dir.resolve("none")), "a refused table creates no file");
    Path orphan = dir.resolve("orphan");
    Files.copy(PagedTemporalTable.indexPath(large), PagedTemporalTable.indexPath(orphan));
    assertThrows(java.io.UncheckedIOException.class,
        () -> PagedTemporalTable.create(orphan, LayoutKind.PSP, 2, SMALL, memory), "its index exists");
    assertFalse(Files.exists(orphan), "the table file made before the index was refused is removed");
    assertTrue(Files.exists(PagedTemporalTable.indexPath(orphan)), "the index that was there stays");
  }

  @ParameterizedTest
  @EnumSource(LayoutKind.class)
  void everyCorruptPageIsNamedWhenItIsRead(LayoutKind kind, EngineMemory memory) throws IOException {
    Path path = dir.resolve("t");
    ReferenceTable reference = new ReferenceTable(ATTRIBUTES);
    try (PagedTemporalTable table = PagedTemporalTable.create(path, kind, ATTRIBUTES, SMALL, memory)) {
      for (long s = 0; s < 20; s++) {
        appendVersions(table, reference, s, 1 + (int) s * 5);
      }
    }
    long pageCount = Files.size(path) / 4096;
    int detected = 0;
    for (long page = 3; page < pageCount; page++) {
      Path copy = dir.resolve("copy-" + page);
      Files.copy(path, copy);
      Files.copy(PagedTemporalTable.indexPath(path), PagedTemporalTable.indexPath(copy));
      try (FileChannel channel = FileChannel.open(copy, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        ByteBuffer b = ByteBuffer.allocate(1);
        channel.read(b, page * 4096 + 100);
        b.put(0, (byte) (b.get(0) ^ 0x5A)).rewind();
        channel.write(b, page * 4096 + 100);
      }
      try (PagedTemporalTable table = PagedTemporalTable.open(copy, SMALL, memory)) {
        checkAll(reference, table, 20); // a page no commit references may be corrupt unnoticed
      } catch (CorruptPageException e) {
        assertEquals(copy, e.file());
        assertEquals(page, e.page(), e.getMessage());
        detected++;
      }
      assertEquals(0, memory.allocatedBytes(), "a corrupt table gives its memory back");
    }
    assertTrue(detected >= 2, "the catalog and the data pages are checked: " + detected + " of " + (pageCount - 3));
  }

  @ParameterizedTest
  @EnumSource(LayoutKind.class)
  void aFullFileRefusesTheAppendByNameAndKeepsWhatWasStored(LayoutKind kind, EngineMemory memory) {
    ReferenceTable reference = new ReferenceTable(ATTRIBUTES);
    try (PagedTemporalTable table = PagedTemporalTable.create(dir.resolve("t"), kind, ATTRIBUTES,
        SMALL.withMaxPages(64), memory)) {
      PageFileFullException full = null;
      long s = 0;
      int v = 0;
      while (full == null) {
        long surrogate = s % 7;
        long[] values = {v, s, 3, 4, 5, 6, 7, v % 3};
        try {
          table.append(surrogate, v, values);
          reference.append(surrogate, v, values);
          s++;
          v++;
        } catch (PageFileFullException e) {
          full = e;
        }
      }
      assertTrue(full.getMessage().contains("full"), full.getMessage());
      assertTrue(v > 20, "the file held versions before it filled: " + v);
      for (long e = 0; e < 7; e++) {
        assertEquals(reference.history(e), table.history(e), "the refused append left no trace");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(LayoutKind.class)
  void aBudgetRefusalNamesTheLayoutAndKeepsWhatWasStored(LayoutKind kind) {
    long created;
    try (EngineMemory measure = EngineMemory.create("measure")) {
      try (PagedTemporalTable table = PagedTemporalTable.create(dir.resolve("measure"), kind, 2, SMALL, measure)) {
        created = measure.allocatedBytes();
      }
    }
    try (EngineMemory tiny = EngineMemory.create(MemoryBudget.of("tiny", 1024))) {
      assertThrows(BudgetExceededException.class,
          () -> PagedTemporalTable.create(dir.resolve("tiny"), kind, 2, SMALL, tiny), "no room for the pools");
      assertEquals(0, tiny.allocatedBytes());
      assertFalse(Files.exists(dir.resolve("tiny")), "a refused create leaves no table file");
      assertFalse(Files.exists(PagedTemporalTable.indexPath(dir.resolve("tiny"))), "nor an index");
    }
    try (EngineMemory small = EngineMemory.create(MemoryBudget.of("small", created + 2048))) {
      ReferenceTable reference = new ReferenceTable(2);
      try (PagedTemporalTable table = PagedTemporalTable.create(dir.resolve("t"), kind, 2, SMALL, small)) {
        BudgetExceededException refused = null;
        long s = 0;
        while (refused == null) {
          try {
            table.append(s, s, s, -s);
            reference.append(s, s, new long[] {s, -s});
            table.append(0, s + 1, s, s);
            reference.append(0, s + 1, new long[] {s, s});
            s++;
          } catch (BudgetExceededException e) {
            refused = e;
          }
        }
        assertEquals(TemporalLayout.OPERATOR, refused.operator());
        assertTrue(s > 10, "the budget held entities before refusing: " + s);
        for (long e = 0; e <= s; e++) {
          assertEquals(reference.history(e), table.history(e), "the refused append left no trace");
        }
      }
      assertEquals(0, small.allocatedBytes());
    }
  }

  @ParameterizedTest
  @EnumSource(LayoutKind.class)
  void theBytesAQueryReadsAreTheInMemoryLayouts(LayoutKind kind, EngineMemory memory) {
    try (PagedTemporalTable paged = PagedTemporalTable.create(dir.resolve("t"), kind, ATTRIBUTES, SMALL, memory);
        TemporalLayout heap = TemporalLayout.create(kind, memory, ATTRIBUTES)) {
      for (long s = 0; s < 30; s++) {
        appendVersions(paged, null, s, 1 + (int) s * 7);
        appendVersions(heap, null, s, 1 + (int) s * 7);
      }
      paged.countTraffic(true);
      heap.countTraffic(true);
      for (long s : new long[] {0, 13, 29}) {
        paged.history(s);
        heap.history(s);
        assertEquals(heap.lastQueryBytes(), paged.lastQueryBytes(), kind + " history of " + s);
        paged.attributeHistory(s, 0);
        heap.attributeHistory(s, 0);
        assertEquals(heap.lastQueryBytes(), paged.lastQueryBytes(), kind + " attribute history of " + s);
      }
      paged.snapshot(50);
      heap.snapshot(50);
      assertTrue(paged.lastQueryBytes() > 0);
      assertEquals(heap.lastQueryBytes(), paged.lastQueryBytes(), kind + " snapshot");
    }
  }

  @Test
  void aClosedTableRefusesEverythingAndGivesItsMemoryBack(EngineMemory memory) {
    PagedTemporalTable table = PagedTemporalTable.create(dir.resolve("t"), LayoutKind.TDSM, 2, SMALL, memory);
    table.append(1, 0, 1, 2);
    assertTrue(table.chargedBytes() > 2L * 8 * 4096, "two pools and the catalog: " + table.chargedBytes());
    table.close();
    table.close();
    table.closeWithoutSync();
    assertEquals(0, memory.allocatedBytes());
    assertThrows(IllegalStateException.class, table::sync);
    assertThrows(IllegalStateException.class, () -> table.append(1, 1, 1, 3));
    assertThrows(IllegalStateException.class, () -> table.history(1));
    assertThrows(IllegalStateException.class, () -> table.snapshot(0));
    assertThrows(IllegalStateException.class, () -> table.attributeHistory(1, 0));
    assertThrows(IllegalArgumentException.class, () -> new TemporalFileConfig(5000, 8, 100));
    assertThrows(IllegalArgumentException.class, () -> new TemporalFileConfig(4096, 7, 100));
  }
}
