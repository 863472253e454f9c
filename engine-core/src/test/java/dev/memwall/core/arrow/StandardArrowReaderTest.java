package dev.memwall.core.arrow;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link TableReader} over tables memwall builds: exact decimals, decoded dictionaries, nulls,
 * empty tables, one schema whatever the encoding or operator, ownership, and no leaks in either the
 * engine's memory or the host's allocator (a plain {@link RootAllocator}).
 */
@ExtendWith(LeakCheck.class)
class StandardArrowReaderTest {
  private static final String[] WORDS = {"MAIL", "SHIP", "AIR", "grün", "", "1-URGENT"};

  private BufferAllocator host;

  @BeforeEach
  void openHost() {
    host = new RootAllocator();
  }

  @AfterEach
  void closeHost() {
    assertEquals(0, host.getAllocatedMemory(), "host allocator leaked");
    host.close();
  }

  @Test
  void decimalsReadBackExactly(EngineMemory memory) throws IOException {
    long[] unscaled = {5525, -1, 0, Long.MAX_VALUE, Long.MIN_VALUE + 1};
    try (TableBuilder builder = new TableBuilder(List.of("price", "n"), List.of(ColumnType.decimal(2), ColumnType.INT64),
        memory.arrow())) {
      for (long value : unscaled) {
        builder.appendLong(value).appendLong(value).endRow();
      }
      builder.appendNull().appendNull().endRow();
      try (TableReader reader = TableReader.of(builder.build(), host)) {
        assertTrue(reader.loadNextBatch());
        DecimalVector prices = (DecimalVector) reader.getVectorSchemaRoot().getVector("price");
        assertEquals(new ArrowType.Decimal(38, 2, 128), prices.getField().getType());
        assertEquals(new BigDecimal("55.25"), prices.getObject(0));
        assertEquals(new BigDecimal("-0.01"), prices.getObject(1));
        assertEquals(new BigDecimal("0.00"), prices.getObject(2));
        assertEquals(new BigDecimal("92233720368547758.07"), prices.getObject(3));
        assertEquals(new BigDecimal("-92233720368547758.07"), prices.getObject(4));
        assertTrue(prices.isNull(5));
        assertEquals(Long.MAX_VALUE, reader.getVectorSchemaRoot().getVector("n").getObject(3));
        assertTrue(reader.bytesRead() > 0);
        assertFalse(reader.loadNextBatch());
        assertEquals(0, reader.getVectorSchemaRoot().getRowCount());
      }
    }
  }

  @Test
  void dictionariesAreDecodedAndTheSchemaIgnoresTheEncoding(EngineMemory memory) throws IOException {
    int rows = TableBuilder.BATCH_ROWS + 300; // two batches
    try (Table encoded = strings(memory, rows, true); Table plain = strings(memory, rows, false)) {
      assertNotNull(encoded.schema().getFields().get(1).getDictionary(), "the builder kept the codes");
      assertNull(plain.schema().getFields().get(1).getDictionary());
      ArrowRows.Stream fromEncoded;
      ArrowRows.Stream fromPlain;
      try (TableReader reader = TableReader.borrowing(encoded, host)) {
        assertEquals(plain.schema(), reader.readSchema(), "the plain table's schema is already standard");
        fromEncoded = ArrowRows.read(reader);
      }
      try (TableReader reader = TableReader.borrowing(plain, host)) {
        fromPlain = ArrowRows.read(reader);
      }
      assertEquals(fromPlain.schema(), fromEncoded.schema());
      assertEquals(ArrowRows.rows(encoded), fromEncoded.rows());
      assertEquals(ArrowRows.rows(plain), fromPlain.rows());
      assertEquals(fromPlain.rows(), fromEncoded.rows());
      assertEquals(List.of(TableBuilder.BATCH_ROWS, 300), fromEncoded.batchRows());
      assertNull(fromEncoded.rows().get(7).get(1), "null rows stay null");
    }
  }

  @Test
  void operatorsThatEncodeDifferentlyGiveOneSchema(EngineMemory memory) throws IOException {
    try (Table input = strings(memory, 5000, true)) {
      ExecutionContext context = new ExecutionContext(memory, 2);
      List<Schema> raw = new ArrayList<>();
      List<Schema> standard = new ArrayList<>();
      List<List<List<Object>>> contents = new ArrayList<>();
      for (Plan plan : List.of(Plan.scan(input), Plan.scan(input).orderBy(SortKey.asc("id")),
          Plan.scan(input).aggregate(List.of(col("id").as("id"), col("s").as("s"))).orderBy(SortKey.asc("id")),
          Plan.scan(input).filter(col("id").lt(lit(5))))) {
        Schema declared = StandardArrow.schema(plan.schema());
        try (Table result = plan.execute(context); TableReader reader = TableReader.borrowing(result, host)) {
          raw.add(result.schema());
          standard.add(reader.readSchema());
          assertEquals(declared, reader.readSchema(), "declared before execution: " + plan);
          contents.add(ArrowRows.read(reader).rows());
        }
      }
      assertTrue(raw.stream().anyMatch(schema -> schema.getFields().get(1).getDictionary() != null)
          && raw.stream().anyMatch(schema -> schema.getFields().get(1).getDictionary() == null),
          "some results encode the strings and some do not: " + raw);
      for (int p = 1; p < standard.size(); p++) {
        assertEquals(standard.get(0), standard.get(p), "raw schemas " + raw);
      }
      assertEquals(contents.get(0), contents.get(1));
      assertEquals(contents.get(0), contents.get(2));
      assertEquals(contents.get(0).subList(0, 5), contents.get(3));
    }
  }

  @Test
  void handBuiltBatchesOfEveryKind(EngineMemory memory) throws IOException {
    BufferAllocator engine = memory.arrow();
    var dict8 = Vectors.dictionary(engine, ArrowRows.encoding(0, 8), "a", null, "ccc");
    var dict16 = Vectors.dictionary(engine, ArrowRows.encoding(1, 16), "x", "yy");
    Schema schema = new Schema(List.of(
        ColumnType.STRING.toField("c8", true, dict8.getEncoding()),
        ColumnType.STRING.toField("c16", true, dict16.getEncoding()),
        new Field("wide", FieldType.nullable(new ArrowType.Decimal(18, 4, 128)), null),
        ColumnType.STRING.toField("plain", true, null),
        ColumnType.DATE.toField("day", true, null),
        ColumnType.FLOAT64.toField("f", true, null)));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, engine);
    root.allocateNew();
    Vectors.codes(root.getVector(0), 0, 1, 2, null, 0);
    Vectors.codes(root.getVector(1), 1, 0, null, 1, 1);
    DecimalVector wide = (DecimalVector) root.getVector(2);
    wide.setSafe(0, new BigDecimal("-99999999999999.9999"));
    wide.setSafe(1, new BigDecimal("1.5000"));
    wide.setNull(2);
    wide.setSafe(3, 0L);
    wide.setSafe(4, 7L);
    Vectors.stringsFromOffset(root.getVector(3), "skipped", "p", null, "", "qq", "rrr");
    Vectors.days(root.getVector(4), 0, null, -1, 19000, 1);
    Vectors.doubles(root.getVector(5), 0.5, Double.NaN, null, -0.0, Double.MAX_VALUE);
    root.setRowCount(5);
    try (TableReader reader = TableReader.of(ArrowRows.own(schema, List.of(root), List.of(dict8, dict16)), host)) {
      ArrowRows.Stream stream = ArrowRows.read(reader);
      List<List<Object>> expected = List.of(
          Arrays.asList("a", "yy", new BigDecimal("-99999999999999.9999"), "p", LocalDate.EPOCH, 0.5),
          Arrays.asList(null, "x", new BigDecimal("1.5000"), null, null, Double.NaN),
          Arrays.asList("ccc", null, null, "", LocalDate.EPOCH.minusDays(1), null),
          Arrays.asList(null, "yy", new BigDecimal("0.0000"), "qq", LocalDate.ofEpochDay(19000), -0.0),
          Arrays.asList("a", "yy", new BigDecimal("0.0007"), "rrr", LocalDate.ofEpochDay(1), Double.MAX_VALUE));
      assertEquals(expected, stream.rows());
      assertEquals(new ArrowType.Decimal(38, 4, 128), stream.schema().getFields().get(2).getType());
    }
    assertEquals(0, memory.arrow().getAllocatedMemory(), "the owning reader closed the table");
  }

  @Test
  void emptyTablesGiveTheSchemaAndNoBatches(EngineMemory memory) throws IOException {
    List<String> names = List.of("d", "s");
    List<ColumnType> types = List.of(ColumnType.decimal(2), ColumnType.STRING);
    Schema standard;
    try (TableBuilder builder = new TableBuilder(names, types, memory.arrow());
        TableReader reader = TableReader.of(builder.build(), host)) {
      standard = reader.readSchema();
      assertEquals(standard, reader.getVectorSchemaRoot().getSchema());
      assertFalse(reader.loadNextBatch());
      assertFalse(reader.loadNextBatch());
    }
    Schema encoded = new Schema(List.of(ColumnType.decimal(2).toField("d", true, null),
        ColumnType.STRING.toField("s", true, ArrowRows.encoding(0, 32))));
    try (TableReader reader = TableReader.of(Table.own(encoded, List.of(), Map.of()), host)) {
      assertEquals(standard, reader.readSchema(), "zero batches, dictionary-encoded");
      assertEquals(new ArrowRows.Stream(standard, List.of(), List.of()), ArrowRows.read(reader));
    }
    VectorSchemaRoot empty = VectorSchemaRoot.create(encoded, memory.arrow());
    empty.allocateNew();
    empty.setRowCount(0);
    var dictionary = Vectors.dictionary(memory.arrow(), ArrowRows.encoding(0, 32), "only");
    try (TableReader reader = TableReader.of(ArrowRows.own(encoded, List.of(empty), List.of(dictionary)), host)) {
      assertEquals(new ArrowRows.Stream(standard, List.of(), List.of()), ArrowRows.read(reader), "one empty batch");
    }
  }

  @Test
  void emptyBatchesAreSkipped(EngineMemory memory) throws IOException {
    Schema schema = new Schema(List.of(ColumnType.INT32.toField("i", true, null)));
    List<VectorSchemaRoot> roots = new ArrayList<>();
    for (int rows : new int[] {0, 2, 0, 0, 3, 0}) {
      VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow());
      root.allocateNew();
      for (int r = 0; r < rows; r++) {
        ((org.apache.arrow.vector.IntVector) root.getVector(0)).setSafe(r, roots.size() * 10 + r);
      }
      root.setRowCount(rows);
      roots.add(root);
    }
    try (TableReader reader = TableReader.of(Table.own(schema, roots, Map.of()), host)) {
      ArrowRows.Stream stream = ArrowRows.read(reader);
      assertEquals(List.of(2, 3), stream.batchRows());
      assertEquals(ArrowRows.column(10, 11, 40, 41, 42), stream.rows());
    }
  }

  @Test
  void ownershipOfTheTable(EngineMemory memory) throws IOException {
    Table borrowed = strings(memory, 100, true);
    long tableBytes = memory.arrow().getAllocatedMemory();
    try (TableReader reader = TableReader.borrowing(borrowed, host)) {
      assertFalse(reader.ownsTable());
      assertTrue(reader.loadNextBatch());
      assertTrue(host.getAllocatedMemory() > 0, "batches live in the host's allocator");
      assertEquals(tableBytes, memory.arrow().getAllocatedMemory(), "nothing of the engine's is allocated");
    }
    assertEquals(tableBytes, memory.arrow().getAllocatedMemory(), "a borrowing reader leaves the table open");
    assertEquals(0, host.getAllocatedMemory());
    assertEquals(100, ArrowRows.rows(borrowed).size(), "the table is still readable");

    TableReader owner = TableReader.of(borrowed, host);
    assertTrue(owner.ownsTable());
    assertTrue(owner.loadNextBatch());
    owner.close(false);
    assertEquals(tableBytes, memory.arrow().getAllocatedMemory(), "close(false) leaves the source open");
    owner.close();
    assertEquals(0, memory.arrow().getAllocatedMemory(), "close() closes the owned table");
    owner.close();
    assertThrows(IllegalStateException.class, owner::loadNextBatch);
    assertThrows(IllegalStateException.class, owner::getVectorSchemaRoot);
  }

  @Test
  void aFailedOfClosesTheTable(EngineMemory memory) {
    var dictionary = Vectors.dictionary(memory.arrow(), ArrowRows.encoding(0, 32), "x");
    Schema unreadable = new Schema(List.of(ColumnType.STRING.toField("s", true, dictionary.getEncoding()),
        new Field("t64", FieldType.nullable(new ArrowType.Time(org.apache.arrow.vector.types.TimeUnit.MICROSECOND, 64)),
            null)));
    Table table = ArrowRows.own(unreadable, List.of(), List.of(dictionary));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TableReader.of(table, host));
    assertTrue(e.getMessage().contains("t64"), e.getMessage());
    assertEquals(0, memory.arrow().getAllocatedMemory(), "of closed the table it was given");
    assertThrows(NullPointerException.class, () -> TableReader.of(null, host));
    assertThrows(NullPointerException.class, () -> TableReader.borrowing(Table.own(unreadable, List.of(), Map.of()), null));
  }

  @Test
  void badDataFailsTheBatchThatMeetsIt(EngineMemory memory) throws IOException {
    var dictionary = Vectors.dictionary(memory.arrow(), ArrowRows.encoding(0, 8), "a", null);
    Schema schema = new Schema(List.of(ColumnType.STRING.toField("s", false, dictionary.getEncoding())));
    VectorSchemaRoot good = VectorSchemaRoot.create(schema, memory.arrow());
    good.allocateNew();
    Vectors.codes(good.getVector(0), 0, 0);
    good.setRowCount(2);
    VectorSchemaRoot nullEntry = VectorSchemaRoot.create(schema, memory.arrow());
    nullEntry.allocateNew();
    Vectors.codes(nullEntry.getVector(0), 0, 1);
    nullEntry.setRowCount(2);
    VectorSchemaRoot outOfRange = VectorSchemaRoot.create(schema, memory.arrow());
    outOfRange.allocateNew();
    Vectors.codes(outOfRange.getVector(0), 2);
    outOfRange.setRowCount(1);
    VectorSchemaRoot nullRow = VectorSchemaRoot.create(schema, memory.arrow());
    nullRow.allocateNew();
    Vectors.codes(nullRow.getVector(0), 0, null);
    nullRow.setRowCount(2);
    try (Table all = ArrowRows.own(schema, List.of(good, nullEntry, outOfRange, nullRow), List.of(dictionary))) {
      for (VectorSchemaRoot bad : List.of(nullEntry, outOfRange, nullRow)) {
        try (Table table = Table.borrow(schema, List.of(good, bad), all.provider());
            TableReader reader = TableReader.borrowing(table, host)) {
          assertFalse(reader.getVectorSchemaRoot().getSchema().getFields().getFirst().isNullable());
          assertTrue(reader.loadNextBatch());
          assertEquals(ArrowRows.column("a", "a"), ArrowRows.rows(reader.getVectorSchemaRoot()));
          IllegalArgumentException e = assertThrows(IllegalArgumentException.class, reader::loadNextBatch);
          assertTrue(e.getMessage().contains("'s'"), e.getMessage());
          var batch = table.batches().get(1);
          assertThrows(IllegalArgumentException.class, () -> StandardBatchCopier.copy(batch, host));
        }
      }
    }
  }

  @Test
  void theCopierChecksItsTarget(EngineMemory memory) {
    try (Table table = strings(memory, 10, false)) {
      var batch = table.batches().getFirst();
      try (VectorSchemaRoot copy = StandardBatchCopier.copy(batch, host)) {
        assertEquals(ArrowRows.rows(table), ArrowRows.rows(copy));
        assertSame(10, copy.getRowCount());
        assertEquals(table.schema(), copy.getSchema(), "INT64 and plain strings are already standard");
      }
      Schema wrong = new Schema(List.of(table.schema().getFields().get(1), table.schema().getFields().get(0)));
      try (VectorSchemaRoot target = VectorSchemaRoot.create(wrong, host)) {
        assertThrows(IllegalArgumentException.class, () -> StandardBatchCopier.copy(batch, target));
      }
      Schema fewer = new Schema(List.of(table.schema().getFields().getFirst()));
      try (VectorSchemaRoot target = VectorSchemaRoot.create(fewer, host)) {
        assertThrows(IllegalArgumentException.class,
            () -> StandardBatchCopier.copy(table.roots().getFirst(), table.provider(), target));
      }
      assertInstanceOf(VectorSchemaRoot.class, batch.arrow(), "the source is untouched");
      assertEquals(10, batch.rowCount());
    }
  }

  /** A table of ids and strings from {@link #WORDS}, every 7th row null; strings kept as codes when {@code encode}. */
  static Table strings(EngineMemory memory, int rows, boolean encode) {
    try (TableBuilder builder = new TableBuilder(List.of("id", "s"), List.of(ColumnType.INT64, ColumnType.STRING),
        new boolean[] {false, encode}, memory.arrow())) {
      for (int r = 0; r < rows; r++) {
        builder.appendLong(r);
        if (r % 7 == 0) {
          builder.appendNull();
        } else {
          builder.appendString(WORDS[r % WORDS.length].getBytes(StandardCharsets.UTF_8));
        }
        builder.endRow();
      }
      return builder.build();
    }
  }
}
