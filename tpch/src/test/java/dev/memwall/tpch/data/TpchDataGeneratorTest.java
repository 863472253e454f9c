package dev.memwall.tpch.data;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ipc.CorruptArrowFileException;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DecimalColumn;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.FileTime;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(LeakCheck.class)
class TpchDataGeneratorTest {
  static final double SF = 0.01;
  static final Map<String, Long> ROWS_SF001 = Map.of("lineitem", 60_175L, "orders", 15_000L, "customer", 1_500L,
      "part", 2_000L, "partsupp", 8_000L, "supplier", 100L, "nation", 25L, "region", 5L);

  @TempDir Path cache;

  @Test
  void generatesAllTablesWithTheirRowCountsAndTypes(EngineMemory memory) throws IOException {
    // Small parts force several files per large table, exercising the multi-file table view.
    TpchDataGenerator generator = new TpchDataGenerator(2, true, 20_000);
    Path dir = TpchDataGenerator.dataDirectory(cache, SF);
    assertEquals("sf0.01", dir.getFileName().toString());
    TpchManifest manifest = generator.ensure(dir, SF, memory);
    assertEquals(3, manifest.tables().get("lineitem").files());
    try (TpchDatabase db = TpchDatabase.open(dir, SF, memory)) {
      for (var expected : ROWS_SF001.entrySet()) {
        assertEquals(expected.getValue(), db.table(expected.getKey()).rowCount(), expected.getKey());
        assertEquals(expected.getValue(), manifest.rows(expected.getKey()), expected.getKey());
      }
      Table lineitem = db.table("lineitem");
      assertEquals(3, lineitem.batches().size());
      Batch first = lineitem.batches().getFirst();
      assertEquals(ColumnType.INT64, first.column("l_orderkey").type());
      assertEquals(ColumnType.INT32, first.column("l_partkey").type());
      assertEquals(ColumnType.decimal(2), first.column("l_extendedprice").type());
      assertEquals(ColumnType.DATE, first.column("l_shipdate").type());
      // Order 1's first line; quantity 17, discount 0.04 and ship date as in dbgen's lineitem.tbl,
      // and the spec's price rule: l_extendedprice = l_quantity * p_retailprice(l_partkey), where
      // p_retailprice = (90000 + ((partkey / 10) mod 20001) + 100 * (partkey mod 1000)) / 100.
      assertEquals(1L, first.column("l_orderkey").getObject(0));
      assertEquals(new BigDecimal("17.00"), first.column("l_quantity").getObject(0));
      for (int row = 0; row < 1000; row++) {
        long partkey = first.column("l_partkey").getLong(row);
        BigDecimal retail = BigDecimal.valueOf(90000 + ((partkey / 10) % 20001) + 100 * (partkey % 1000), 2);
        BigDecimal quantity = ((DecimalColumn) first.column("l_quantity")).getDecimal(row);
        assertEquals(quantity.multiply(retail).setScale(2),
            ((DecimalColumn) first.column("l_extendedprice")).getDecimal(row), "row " + row);
      }
      assertEquals(new BigDecimal("0.04"), first.column("l_discount").getObject(0));
      assertEquals("N", first.column("l_returnflag").getObject(0));
      assertEquals("O", first.column("l_linestatus").getObject(0));
      assertEquals(LocalDate.of(1996, 3, 13), first.column("l_shipdate").getObject(0));
      assertEquals("DELIVER IN PERSON", first.column("l_shipinstruct").getObject(0));
      assertEquals(1, ((DictionaryColumn) first.column("l_returnflag")).codeBytes());
      Batch part = db.table("part").batches().getFirst();
      assertEquals(2, ((DictionaryColumn) part.column("p_type")).codeBytes());
      assertEquals(150, ((DictionaryColumn) part.column("p_type")).dictionary().length());
      // The last batch of the multi-file table comes from the last file.
      Batch last = lineitem.batches().getLast();
      assertEquals(60_000L, last.column("l_orderkey").getObject(last.rowCount() - 1));
      assertEquals("ALGERIA", db.table("nation").batches().getFirst().column("n_name").getObject(0));
    }
  }

  @Test
  void completeSetIsReusedAndHalfWrittenSetIsRegenerated(EngineMemory memory) throws IOException {
    TpchDataGenerator generator = new TpchDataGenerator(2, true);
    Path dir = TpchDataGenerator.dataDirectory(cache, SF);
    generator.ensure(dir, SF, memory);
    Path region = TpchManifest.file(dir, "region", 1);
    FileTime written = FileTime.fromMillis(1_000_000_000L);
    Files.setLastModifiedTime(region, written);

    generator.ensure(dir, SF, memory);
    assertEquals(written, Files.getLastModifiedTime(region), "a complete set must be reused as is");

    // A set without its manifest (an interrupted run) is regenerated from scratch, and junk of the
    // interrupted run is removed.
    Files.delete(dir.resolve(TpchManifest.FILE_NAME));
    Files.writeString(TpchManifest.file(dir, "lineitem", 1), "half written");
    Files.writeString(dir.resolve("orders-1.arrow.tmp"), "left over");
    TpchManifest manifest = generator.ensure(dir, SF, memory);
    assertNotEquals(written, Files.getLastModifiedTime(region));
    assertFalse(Files.exists(dir.resolve("orders-1.arrow.tmp")));
    assertEquals(60_175L, manifest.rows("lineitem"));
    try (TpchDatabase db = TpchDatabase.open(dir, SF, memory)) {
      assertEquals(60_175L, db.table("lineitem").rowCount());
    }
  }

  @Test
  void corruptFileIsReportedWithItsName(EngineMemory memory) throws IOException {
    TpchDataGenerator generator = new TpchDataGenerator(1, true);
    Path dir = TpchDataGenerator.dataDirectory(cache, SF);
    generator.ensure(dir, SF, memory);
    Path orders = TpchManifest.file(dir, "orders", 1);
    byte[] bytes = Files.readAllBytes(orders);
    Files.write(orders, java.util.Arrays.copyOf(bytes, bytes.length / 3));
    var e = assertThrows(CorruptDataSetException.class, () -> TpchDatabase.open(dir, SF, memory));
    assertTrue(e.getMessage().contains("orders-1.arrow (table orders)"), e.getMessage());
    assertEquals("orders", e.table());
    assertEquals(-1, e.batch(), "a truncated file has no batch to blame: " + e.getMessage());
    // without checksums (a set written before they were kept), the Arrow reader names the file
    Files.writeString(dir.resolve(TpchManifest.FILE_NAME), Files.readAllLines(dir.resolve(TpchManifest.FILE_NAME))
        .stream().filter(line -> !line.contains(".crc32c=")).collect(java.util.stream.Collectors.joining("\n")));
    var arrow = assertThrows(CorruptArrowFileException.class, () -> TpchDatabase.open(dir, SF, memory));
    assertTrue(arrow.getMessage().contains("orders-1.arrow"), arrow.getMessage());
  }

  @Test
  void scaleFactorsBeyondDiskOrMemoryAreRefusedBeforeAnythingIsWritten(EngineMemory memory) {
    Path dir = TpchDataGenerator.dataDirectory(cache, 1_000_000);
    var disk = assertThrows(DataDirectoryException.class,
        () -> new TpchDataGenerator(1, true).ensure(dir, 1_000_000, memory));
    assertTrue(disk.getMessage().contains("SF 1000000.0 needs about") && disk.getMessage().contains("GiB of disk"),
        disk.getMessage());
    assertFalse(Files.exists(dir), "nothing is created for a refused scale factor");
    var ram = assertThrows(DataDirectoryException.class,
        () -> TpchDataGenerator.checkCapacity(dir, 10, 8L << 30));
    assertTrue(ram.getMessage().contains("more than this machine's 8.0 GiB of memory"), ram.getMessage());
    assertDoesNotThrow(() -> TpchDataGenerator.checkCapacity(dir, 10, 24L << 30));
    var small = assertThrows(DataDirectoryException.class, () -> TpchDataGenerator.checkCapacity(dir, SF, 1L << 20));
    assertTrue(small.getMessage().endsWith("SF 0.01 is about 9.2 MiB of data, more than this machine's 1.0 MiB of memory"),
        small.getMessage()); // not "0.0 GiB"
  }

  /**
   * Budgets from too small for the first table to enough for all: one worker generates lineitem,
   * orders, customer, ... in turn, so the budget stops it at one table or another, after writing the
   * tables before; whichever it is, no later table is generated, and the failure leaves no data file
   * and no buffer behind.
   */
  @Test
  void aGenerationThatFailsRemovesTheFilesItWrote() throws IOException, InterruptedException {
    Path dir = Files.createDirectories(TpchDataGenerator.dataDirectory(cache, SF));
    List<String> stoppedAfterWriting = new ArrayList<>();
    for (long budget = 8L << 20; ; budget += 1L << 20) {
      List<String> written = new ArrayList<>();
      try (WatchService watch = dir.getFileSystem().newWatchService();
          EngineMemory tight = EngineMemory.create(MemoryBudget.of("generation", budget))) {
        dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
        try {
          new TpchDataGenerator(1, true).ensure(dir, SF, tight);
          break; // enough for every table
        } catch (BudgetExceededException expected) {
          // stopped at some table
        }
        for (WatchKey key = watch.poll(); key != null; key = watch.poll()) {
          key.pollEvents().stream().map(event -> event.context().toString()).filter(name -> name.endsWith(".arrow"))
              .forEach(written::add);
          key.reset();
        }
      }
      try (var left = Files.list(dir)) {
        assertEquals(List.of(DataDirectoryLock.FILE_NAME), left.map(p -> p.getFileName().toString()).toList(),
            "a generation stopped by a budget of " + budget + " bytes after writing " + written + " left files");
      }
      assertEquals(TpchSchema.TABLE_NAMES.subList(0, written.size()).stream()
          .map(table -> TpchManifest.fileName(table, 1)).toList(), written,
          "the tables after the one that failed must not be generated at all");
      if (!written.isEmpty()) {
        stoppedAfterWriting.add((budget >> 20) + " MiB: " + written);
      }
    }
    assertFalse(stoppedAfterWriting.isEmpty(), "no budget stopped the generation after it had written a file");
    System.out.println("failed generations cleaned up after writing files, by budget: " + stoppedAfterWriting);
  }

  @Test
  void aManifestThatCannotBeWrittenNamesItsFileAndLeavesNoTemporary() throws IOException {
    Path full = Path.of("/dev/full"); // every write fails with ENOSPC
    Assumptions.assumeTrue(Files.isWritable(full), "no /dev/full here");
    Path dir = Files.createDirectories(cache.resolve("sf1"));
    Path temporary = Files.createSymbolicLink(dir.resolve(TpchManifest.FILE_NAME + ".tmp"), full);
    Map<String, TpchManifest.TableFiles> tables = new java.util.LinkedHashMap<>();
    TpchSchema.TABLE_NAMES.forEach(table -> tables.put(table, new TpchManifest.TableFiles(1, 1)));
    TpchManifest manifest = new TpchManifest(TpchManifest.FORMAT_VERSION, 1, tables);
    var e = assertThrows(FileSystemException.class, () -> manifest.write(dir));
    assertEquals(temporary + ": No space left on device", e.getMessage());
    try (var left = Files.list(dir)) {
      assertEquals(List.of(), left.toList(), "no temporary file and no manifest");
    }
  }

  @Test
  void badScaleFactorAndUnwritableDirectoryAreRejected(EngineMemory memory) throws IOException {
    TpchDataGenerator generator = new TpchDataGenerator(1, true);
    var e = assertThrows(IllegalArgumentException.class, () -> generator.ensure(cache.resolve("x"), 0, memory));
    assertTrue(e.getMessage().contains("scale factor"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> TpchDataGenerator.dataDirectory(cache, -1));
    Path blocker = Files.writeString(cache.resolve("a-file"), "not a directory");
    Path below = blocker.resolve("sf0.01");
    var d = assertThrows(DataDirectoryException.class, () -> generator.ensure(below, SF, memory));
    assertTrue(d.getMessage().contains(below.toString()), d.getMessage());
    var missing = assertThrows(DataDirectoryException.class, () -> TpchDatabase.open(cache, SF, memory));
    assertInstanceOf(IOException.class, missing);
  }

  @Test
  void unknownTableNameIsRejected() {
    var e = assertThrows(IllegalArgumentException.class, () -> TpchSchema.columns("lineitems"));
    assertTrue(e.getMessage().contains("lineitems"), e.getMessage());
  }
}
