package dev.memwall.core.ipc;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ipc.ForeignArrowFiles.Layout;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.Int64Column;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Files other Arrow libraries write hold column types memwall does not read (pyarrow's
 * {@code large_string} and {@code timestamp}): {@link ArrowFiles#map} leaves those columns out
 * and reads the rest, and a query that names one is refused naming the column, its Arrow type and
 * the file. (Such a file used to fail with Arrow's "RefCnt has gone negative", a double close of
 * the mapping hiding the real error.)
 */
@ExtendWith(LeakCheck.class)
class ArrowFilesForeignTypesTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Layout.class)
  void unsupportedColumnsAreLeftOutAndTheOthersRead(Layout layout, EngineMemory memory) throws IOException {
    Path file = dir.resolve("pyarrow-like-" + layout + ".arrow");
    ForeignArrowFiles.writeWithLargeStringAndTimestamp(file, layout, 2, 500, memory.arrow());
    try (Table table = ArrowFiles.map(file, memory)) {
      assertEquals(List.of("id"), table.schema().getFields().stream().map(Field::getName).toList());
      assertEquals(1000, table.rowCount());
      assertEquals(742L, ((Int64Column) table.batches().get(1).column("id")).get(242));
      try (Table sum = Plan.scan(table).aggregate(List.of(), Aggregate.sum(col("id"), "total"))
          .execute(new ExecutionContext(memory, 2))) {
        assertEquals(999L * 1000 / 2, ((Int64Column) sum.batches().getFirst().column("total")).get(0));
      }
      for (String[] column : new String[][] {{"ts", "Timestamp(MICROSECOND, UTC)"}, {"ls", "LargeUtf8"}}) {
        Plan plan = Plan.scan(table).aggregate(List.of(), Aggregate.max(col(column[0]), "x"));
        var e = assertThrows(IllegalArgumentException.class, () -> plan.execute(new ExecutionContext(memory, 1)).close());
        assertNamesColumnTypeAndFile(e.getMessage(), column[0], column[1], file);
        assertEquals(e.getMessage(), assertThrows(IllegalArgumentException.class, plan::schema).getMessage());
        var lookup = assertThrows(IllegalArgumentException.class, () -> table.columnIndex(column[0]));
        assertNamesColumnTypeAndFile(lookup.getMessage(), column[0], column[1], file);
        lookup = assertThrows(IllegalArgumentException.class, () -> table.batches().getFirst().column(column[0]));
        assertNamesColumnTypeAndFile(lookup.getMessage(), column[0], column[1], file);
      }
    }
    assertEquals(0, memory.allocatedBytes(), "closing the table frees every buffer, left-out columns' too");
  }

  @ParameterizedTest
  @EnumSource(Layout.class)
  void aFileOfOnlyUnsupportedColumnsKeepsItsRowCount(Layout layout, EngineMemory memory) throws IOException {
    Path file = dir.resolve("timestamps-" + layout + ".arrow");
    try (TimeStampMicroTZVector ts = new TimeStampMicroTZVector("ts", memory.arrow(), "UTC");
        VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(ts));
        var channel = ForeignArrowFiles.open(file);
        var writer = ForeignArrowFiles.writer(layout, root, null, channel)) {
      writer.start();
      root.allocateNew();
      ts.setSafe(0, 1);
      ts.setSafe(1, 2);
      root.setRowCount(2);
      writer.writeBatch();
      writer.end();
    }
    try (Table table = ArrowFiles.map(file, memory)) {
      assertEquals(0, table.schema().getFields().size());
      assertEquals(2, table.rowCount());
    }
  }

  @org.junit.jupiter.api.Test
  void tablesOverCallersBatchesStillRefuseUnsupportedColumnsByName(EngineMemory memory) {
    try (BigIntVector id = new BigIntVector("id", memory.arrow());
        TimeStampMicroTZVector ts = new TimeStampMicroTZVector("ts", memory.arrow(), "UTC");
        VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(id, ts))) {
      root.setRowCount(0);
      var e = assertThrows(IllegalArgumentException.class, () -> Table.borrow(root.getSchema(), List.of(root), null));
      assertTrue(e.getMessage().contains("'ts'") && e.getMessage().contains("Timestamp(MICROSECOND, UTC)"), e.getMessage());
    }
  }

  private static void assertNamesColumnTypeAndFile(String message, String column, String type, Path file) {
    assertFalse(message.contains("\n"), "one line: " + message);
    assertTrue(message.contains("'" + column + "'"), message);
    assertTrue(message.contains(type), message);
    assertTrue(message.contains(file.toString()), message);
  }
}
