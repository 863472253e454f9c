package dev.memwall.core.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.memwall.core.arrow.StandardArrow;
import dev.memwall.core.arrow.StandardBatchCopier;
import dev.memwall.core.ipc.ForeignArrowFiles.Layout;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TypedRows;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every Arrow type memwall reads through a view or a new kind ({@link TypedRows}: bool, int8,
 * int16, float32, date64, timestamps of all units with and without zones, decimal(38,4),
 * large_utf8 and a dictionary of large_utf8 values) round-trips: written by Arrow Java's file and
 * stream writers and mapped with {@link ArrowFiles#map}, or borrowed from the host's batches with
 * {@link Table#borrow}, each value reads back as written; the time64 column beside them is left
 * out; and a plan's output of them, written with {@link ArrowFiles#write} and mapped again, holds
 * the same values in the types memwall writes.
 */
@ExtendWith(LeakCheck.class)
class ArrowTypesRoundTripTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Layout.class)
  void filesAndStreamsWrittenByArrowJavaReadBackValueForValue(Layout layout, EngineMemory memory) throws IOException {
    Random random = new Random(42 + layout.ordinal());
    List<TypedRows.Row> first = TypedRows.random(random, 700);
    List<TypedRows.Row> second = TypedRows.random(random, 300);
    Path file = dir.resolve("types-" + layout + ".arrow");
    Dictionary dictionary = TypedRows.dictionary(memory.arrow());
    try (var dictionaryValues = dictionary.getVector();
        VectorSchemaRoot root = TypedRows.root(first, memory.arrow());
        FileChannel channel = ForeignArrowFiles.open(file);
        ArrowWriter writer = ForeignArrowFiles.writer(layout, root, TypedRows.provider(dictionary), channel)) {
      writer.start();
      writer.writeBatch();
      try (VectorSchemaRoot next = TypedRows.root(second, memory.arrow());
          ArrowRecordBatch batch = new VectorUnloader(next).getRecordBatch()) {
        new VectorLoader(root).load(batch);
      }
      writer.writeBatch();
      writer.end();
    }
    List<List<Object>> expected = new ArrayList<>();
    first.forEach(row -> expected.add(row.expected()));
    second.forEach(row -> expected.add(row.expected()));
    try (Table table = ArrowFiles.map(file, memory)) {
      assertEquals(TypedRows.COLUMNS, table.schema().getFields().stream().map(Field::getName).toList());
      assertEquals(expected, TypedRows.read(table));
      assertEquals("column 'odd' has Arrow type Time(MICROSECOND, 64), which memwall does not read (in " + file
          + "; ArrowFiles.map left the column out)", Table.leftOut(table.schema(), "odd"));
      assertPlanOutputRoundTrips(table, expected, memory);
    }
    assertEquals(0, memory.allocatedBytes());
  }

  @Test
  void hostBatchesAreBorrowedValueForValue(EngineMemory memory) throws IOException {
    List<TypedRows.Row> rows = TypedRows.random(new Random(7), 2000);
    Dictionary dictionary = TypedRows.dictionary(memory.arrow());
    try (var dictionaryValues = dictionary.getVector();
        VectorSchemaRoot root = TypedRows.root(rows, memory.arrow());
        Table table = Table.borrow(root.getSchema(), List.of(root), TypedRows.provider(dictionary))) {
      List<List<Object>> expected = rows.stream().map(TypedRows.Row::expected).toList();
      assertEquals(TypedRows.COLUMNS, table.schema().getFields().stream().map(Field::getName).toList());
      assertEquals(expected, TypedRows.read(table));
      assertEquals(13, root.getFieldVectors().size(), "the host's root keeps its columns");
      assertPlanOutputRoundTrips(table, expected, memory);
      assertStandardCopyHoldsTheValues(table, expected, memory);
    }
  }

  /** The standard Arrow copy of every batch (views widened, dictionaries decoded) reads back alike. */
  private static void assertStandardCopyHoldsTheValues(Table table, List<List<Object>> expected, EngineMemory memory) {
    List<VectorSchemaRoot> copies = new ArrayList<>();
    try {
      for (var batch : table.batches()) {
        copies.add(StandardBatchCopier.copy(batch, memory.arrow()));
      }
      try (Table standard = Table.borrow(copies.getFirst().getSchema(), copies, null)) {
        assertEquals(StandardArrow.schema(table.schema()), standard.schema());
        assertEquals(expected, TypedRows.read(standard));
      }
    } finally {
      copies.forEach(VectorSchemaRoot::close);
    }
  }

  /**
   * A plan's output of every column (the types memwall writes: Bool, Int(32), Float(DOUBLE),
   * Date(DAY), the timestamps as they were, scaled int64 decimals, Utf8) holds the same values, and
   * so does that output written to a file and mapped back.
   */
  private void assertPlanOutputRoundTrips(Table input, List<List<Object>> expected, EngineMemory memory)
      throws IOException {
    Path copy = dir.resolve("copy-" + System.nanoTime() + ".arrow");
    try (Table output = Plan.scan(input).execute(new ExecutionContext(memory, 2))) {
      assertEquals(sorted(expected), sorted(TypedRows.read(output)));
      List<ArrowType> types = output.schema().getFields().stream().map(Field::getType).toList();
      assertEquals(ArrowType.Bool.INSTANCE, types.get(0));
      assertEquals(new ArrowType.Int(32, true), types.get(1));
      assertEquals(new ArrowType.Timestamp(TimeUnit.SECOND, null), types.get(5));
      assertEquals(new ArrowType.Timestamp(TimeUnit.NANOSECOND, TypedRows.NEW_YORK), types.get(8));
      assertEquals(ColumnType.decimal(4), ColumnType.of(output.schema().getFields().get(9)));
      ArrowFiles.write(copy, output, memory.arrow());
      assertStandardCopyHoldsTheValues(output, TypedRows.read(output), memory);
    }
    try (Table mapped = ArrowFiles.map(copy, memory)) {
      assertEquals(sorted(expected), sorted(TypedRows.read(mapped)));
      assertNull(Table.leftOut(mapped.schema(), "odd"));
    }
  }

  /** Rows in a fixed order (a plan on several threads returns them in any). */
  private static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> copy = new ArrayList<>(rows);
    copy.sort((a, b) -> a.toString().compareTo(b.toString()));
    return copy;
  }
}
