package dev.memwall.substrait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.ipc.CorruptArrowFileException;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.vector.Table;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables a catalog makes itself: Arrow files, memwall data set directories and a host's streams,
 * owned by the catalog and freed by its close (the leak check fails a test that leaves one open);
 * and what a bad source is refused with.
 */
@ExtendWith(LeakCheck.class)
class CatalogSourcesTest {
  @TempDir Path dir;

  @Test
  void fileIsMappedAsItsRowsAndFreedByTheCatalog(EngineMemory memory) throws IOException {
    Path file = dir.resolve("t.arrow");
    List<List<Object>> expected;
    try (Table t = Fixture.t(memory)) {
      ArrowFiles.write(file, t, memory.arrow());
      expected = TableRows.of(t);
    }
    try (Catalog catalog = new Catalog().registerFile("T", file, memory)) {
      Table mapped = catalog.table(List.of("t")).orElseThrow();
      assertEquals(expected, TableRows.of(mapped));
      assertEquals(8, catalog.statistics("t").rows());
      assertEquals(List.of(), catalog.leftOut("id"));
    }
  }

  @Test
  void dataSetDirectoryRegistersEachTableItsPartsTogether(EngineMemory memory) throws IOException {
    List<List<Object>> tRows;
    List<List<Object>> uRows;
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      ArrowFiles.write(dir.resolve("t-1.arrow"), t, memory.arrow());
      ArrowFiles.write(dir.resolve("t-2.arrow"), t, memory.arrow());
      ArrowFiles.write(dir.resolve("t-10.arrow"), t, memory.arrow()); // parts in number order, not name order
      ArrowFiles.write(dir.resolve("u.feather"), u, memory.arrow());
      tRows = new ArrayList<>(TableRows.of(t));
      tRows.addAll(TableRows.of(t));
      tRows.addAll(TableRows.of(t));
      uRows = TableRows.of(u);
    }
    Files.writeString(dir.resolve("_COMPLETE"), "format=1\n");
    Files.writeString(dir.resolve(".t-3.arrow.tmp"), "half written");
    Files.writeString(dir.resolve("notes.txt"), "not a table");
    try (Catalog catalog = new Catalog().registerDataSet(dir, memory)) {
      assertEquals(List.of("t", "u"), List.copyOf(catalog.tables().keySet()));
      assertEquals(tRows, TableRows.of(catalog.table(List.of("T")).orElseThrow()));
      assertEquals(uRows, TableRows.of(catalog.table(List.of("u")).orElseThrow()));
      assertEquals(24, catalog.statistics("t").rows());
    }
  }

  @Test
  void streamIsCopiedIntoTheBudgetAndOutlivesItsReader(EngineMemory memory) throws IOException {
    List<List<Object>> expected;
    Catalog catalog = new Catalog();
    try (Table t = Fixture.t(memory); TableReader reader = TableReader.borrowing(t, memory.arrow())) {
      expected = TableRows.of(t);
      catalog.registerStream("s", reader, memory);
    }
    try (catalog) {
      assertEquals(expected, TableRows.of(catalog.table(List.of("s")).orElseThrow()));
      assertEquals(expected, TableRows.of(catalog.table(List.of("s")).orElseThrow()), "read again");
    }
  }

  @Test
  void streamWithDictionariesKeepsThemAndAnEmptyStreamIsAnEmptyTable(EngineMemory memory) throws IOException {
    byte[] ipc = dictionaryStream(memory.arrow(), List.of("b", "a", "b", "c"), 2);
    try (Catalog catalog = new Catalog();
        ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipc), memory.arrow())) {
      catalog.registerStream("d", reader, memory);
      reader.close(); // the copy is the catalog's
      Table d = catalog.table(List.of("d")).orElseThrow();
      assertEquals(List.of(List.of(0L, "b"), List.of(1L, "a"), List.of(2L, "b"), List.of(3L, "c"),
          List.of(0L, "b"), List.of(1L, "a"), List.of(2L, "b"), List.of(3L, "c")), TableRows.of(d));
      assertEquals(1, d.dictionaries().size());
    }
    byte[] empty = dictionaryStream(memory.arrow(), List.of(), 0);
    try (Catalog catalog = new Catalog();
        ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(empty), memory.arrow())) {
      catalog.registerStream("e", reader, memory);
      assertEquals(0, catalog.table(List.of("e")).orElseThrow().rowCount());
      assertEquals(List.of("k", "word"), catalog.table(List.of("e")).orElseThrow().schema().getFields().stream()
          .map(Field::getName).toList());
    }
  }

  @Test
  void streamLargerThanTheBudgetIsRefusedByNameAndLeavesNothing(EngineMemory memory) throws IOException {
    List<Object[]> rows = new ArrayList<>();
    for (long i = 0; i < 10_000; i++) {
      rows.add(new Object[] {i});
    }
    try (EngineMemory small = EngineMemory.create(MemoryBudget.of("small", 16 * 1024), 0);
        Table big = Fixture.build(List.of("n"), List.of(dev.memwall.core.vector.ColumnType.INT64), rows, memory);
        TableReader reader = TableReader.borrowing(big, memory.arrow());
        Catalog catalog = new Catalog()) {
      BudgetExceededException e = assertThrows(BudgetExceededException.class,
          () -> catalog.registerStream("big", reader, small));
      assertTrue(e.getMessage().contains("small"), e.getMessage());
      assertTrue(catalog.tables().isEmpty(), "a failed registration registers nothing");
      assertEquals(0, small.arrow().getAllocatedMemory(), "what was copied is freed");
    }
  }

  @Test
  void missingCorruptAndMisplacedSourcesAreRefusedByName(EngineMemory memory) throws IOException {
    try (Catalog catalog = new Catalog()) {
      NoSuchFileException missing = assertThrows(NoSuchFileException.class,
          () -> catalog.registerFile("m", dir.resolve("missing.arrow"), memory));
      assertTrue(missing.getMessage().contains("missing.arrow"), missing.getMessage());
      assertThrows(NoSuchFileException.class, () -> catalog.registerDataSet(dir.resolve("nowhere"), memory));
      assertThrows(NoSuchFileException.class, () -> catalog.registerDataSet(dir, memory), "no Arrow file in it");

      Path file = dir.resolve("t.arrow");
      try (Table t = Fixture.t(memory)) {
        ArrowFiles.write(file, t, memory.arrow());
      }
      assertThrows(NotDirectoryException.class, () -> catalog.registerDataSet(file, memory));
      Path truncated = dir.resolve("truncated.arrow");
      byte[] bytes = Files.readAllBytes(file);
      Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length / 2));
      CorruptArrowFileException corrupt = assertThrows(CorruptArrowFileException.class,
          () -> catalog.registerFile("c", truncated, memory));
      assertTrue(corrupt.getMessage().contains("truncated.arrow"), corrupt.getMessage());
      Path garbage = dir.resolve("garbage.arrow");
      Files.writeString(garbage, "ARROW1 but nothing of what follows is Arrow at all, not even its footer");
      assertThrows(CorruptArrowFileException.class, () -> catalog.registerFile("g", garbage, memory));
      assertTrue(catalog.tables().isEmpty());

      catalog.registerFile("t", file, memory);
      IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
          () -> catalog.registerFile("T", file, memory));
      assertEquals("table 'T' is already registered as 't'", twice.getMessage());
      assertEquals(1, catalog.tables().size());
    }
  }

  @Test
  void partsOfOneTableWithOtherColumnsAreRefusedNamingTheTable(EngineMemory memory) throws IOException {
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      ArrowFiles.write(dir.resolve("x-1.arrow"), t, memory.arrow());
      ArrowFiles.write(dir.resolve("x-2.arrow"), u, memory.arrow());
    }
    try (Catalog catalog = new Catalog()) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> catalog.registerDataSet(dir, memory));
      assertTrue(e.getMessage().startsWith("table 'x': ") && e.getMessage().contains("x-2.arrow"), e.getMessage());
      assertTrue(catalog.tables().isEmpty());
    }
  }

  @Test
  void columnOfAnUnsupportedTypeIsLeftOutWithAReasonNamingTableAndColumn(EngineMemory memory) throws IOException {
    Path file = dir.resolve("wide.arrow");
    UnreadableColumnFile.write(file, "u32", 3, memory.arrow());
    try (Catalog catalog = new Catalog().registerFile("wide", file, memory)) {
      Table wide = catalog.table(List.of("wide")).orElseThrow();
      assertEquals(List.of("id"), wide.schema().getFields().stream().map(Field::getName).toList());
      List<String> why = catalog.leftOut("U32");
      assertEquals(1, why.size());
      assertTrue(why.getFirst().startsWith("table 'wide': ") && why.getFirst().contains("u32")
          && why.getFirst().contains("wide.arrow"), why.getFirst());
      assertFalse(catalog.leftOut("id").iterator().hasNext());
    }
  }

  @Test
  void callersTablesStayOpenWhenTheCatalogCloses(EngineMemory memory) {
    try (Table t = Fixture.t(memory)) {
      Catalog catalog = Catalog.of(Map.of("t", t));
      catalog.close();
      catalog.close();
      assertSame(t, catalog.table(List.of("t")).orElseThrow());
      assertEquals(8, TableRows.of(t).size(), "still readable");
    }
  }

  /** An IPC stream of {@code batches} batches (at least one written when words are given) of a row number and a dictionary-encoded word. */
  private static byte[] dictionaryStream(BufferAllocator allocator, List<String> words, int batches) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DictionaryEncoding encoding = new DictionaryEncoding(1, false, new ArrowType.Int(32, true));
    try (VarCharVector values = new VarCharVector("word", allocator);
        VarCharVector plain = new VarCharVector("word", FieldType.nullable(ArrowType.Utf8.INSTANCE), allocator);
        BigIntVector k = new BigIntVector("k", allocator)) {
      List<String> distinct = words.stream().distinct().sorted().toList();
      for (int i = 0; i < distinct.size(); i++) {
        values.setSafe(i, distinct.get(i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      values.setValueCount(distinct.size());
      for (int i = 0; i < words.size(); i++) {
        plain.setSafe(i, words.get(i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        k.setSafe(i, i);
      }
      plain.setValueCount(words.size());
      k.setValueCount(words.size());
      Dictionary dictionary = new Dictionary(values, encoding);
      DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(dictionary);
      try (var encoded = (org.apache.arrow.vector.FieldVector) DictionaryEncoder.encode(plain, dictionary)) {
        VectorSchemaRoot root = new VectorSchemaRoot(List.of(k.getField(), encoded.getField()), List.of(k, encoded),
            words.size());
        try (ArrowStreamWriter writer = new ArrowStreamWriter(root, provider, Channels.newChannel(out))) {
          writer.start();
          for (int b = 0; b < batches; b++) {
            writer.writeBatch();
          }
          writer.end();
        }
      }
    }
    return out.toByteArray();
  }
}
