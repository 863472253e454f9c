package dev.memwall.core.ipc;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr;
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
import java.time.Instant;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Files other Arrow libraries write hold column types memwall does not read (pyarrow's
 * {@code time64} and {@code binary}): {@link ArrowFiles#map} leaves those columns out and reads
 * the rest (pyarrow's {@code large_string} and {@code timestamp} included), and a query that names
 * one is refused naming the column, its Arrow type and the file. (Such a file used to fail with
 * Arrow's "RefCnt has gone negative", a double close of the mapping hiding the real error.)
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
      assertEquals(List.of("id", "ls", "ts"), table.schema().getFields().stream().map(Field::getName).toList());
      assertEquals(1000, table.rowCount());
      assertEquals(742L, ((Int64Column) table.batches().get(1).column("id")).get(242));
      assertEquals("s742", table.batches().get(1).column("ls").getObject(242));
      assertEquals(Instant.ofEpochSecond(742), table.batches().get(1).column("ts").getObject(242));
      try (Table sum = Plan.scan(table).aggregate(List.of(), Aggregate.sum(col("id"), "total"))
          .execute(new ExecutionContext(memory, 2))) {
        assertEquals(999L * 1000 / 2, ((Int64Column) sum.batches().getFirst().column("total")).get(0));
      }
      for (String[] column : new String[][] {{"tm", "Time(MICROSECOND, 64)"}, {"bin", "Binary"}}) {
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
    Path file = dir.resolve("times-" + layout + ".arrow");
    try (TimeMicroVector tm = new TimeMicroVector("tm", memory.arrow());
        VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(tm));
        var channel = ForeignArrowFiles.open(file);
        var writer = ForeignArrowFiles.writer(layout, root, null, channel)) {
      writer.start();
      root.allocateNew();
      tm.setSafe(0, 1);
      tm.setSafe(1, 2);
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
  void tablesOverCallersBatchesLeaveUnsupportedColumnsOutAndRefuseThemByName(EngineMemory memory) {
    try (BigIntVector id = new BigIntVector("id", memory.arrow());
        TimeMicroVector tm = new TimeMicroVector("tm", memory.arrow());
        VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(id, tm))) {
      root.allocateNew();
      id.setSafe(0, 7);
      tm.setSafe(0, 9);
      root.setRowCount(1);
      try (Table table = Table.borrow(root.getSchema(), List.of(root), null)) {
        assertEquals(List.of("id"), table.schema().getFields().stream().map(Field::getName).toList());
        try (Table ids = Plan.scan(table).execute(new ExecutionContext(memory, 1))) {
          assertEquals(7L, ids.batches().getFirst().column("id").getObject(0));
        }
        var e = assertThrows(IllegalArgumentException.class,
            () -> Plan.scan(table).filter(col("tm").gt(Expr.lit(1))).execute(new ExecutionContext(memory, 1)).close());
        assertTrue(e.getMessage().contains("'tm'") && e.getMessage().contains("Time(MICROSECOND, 64)")
            && e.getMessage().contains("Table.borrow") && !e.getMessage().contains("\n"), e.getMessage());
      }
      assertEquals(9L, tm.get(0), "the host's vectors are untouched");
    }
  }

  private static void assertNamesColumnTypeAndFile(String message, String column, String type, Path file) {
    assertFalse(message.contains("\n"), "one line: " + message);
    assertTrue(message.contains("'" + column + "'"), message);
    assertTrue(message.contains(type), message);
    assertTrue(message.contains(file.toString()), message);
  }
}
