package dev.memwall.core.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A {@link TableReader} written through Arrow's own IPC writers (stream and file format) and read
 * back with Arrow's readers: the standard schema, the batches and every value come back.
 */
@ExtendWith(LeakCheck.class)
class StandardArrowIpcTest {
  static final List<String> NAMES = List.of("i", "l", "f", "d", "price", "mode", "comment");
  static final List<ColumnType> TYPES = List.of(ColumnType.INT32, ColumnType.INT64, ColumnType.FLOAT64,
      ColumnType.DATE, ColumnType.decimal(2), ColumnType.STRING, ColumnType.STRING);
  private static final String[] MODES = {"MAIL", "SHIP", "AIR", "RAIL", "TRUCK", "FOB", "REG AIR"};

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
  void streamAndFileFormatsRoundTrip(EngineMemory memory) throws IOException {
    try (Table table = mixed(memory, TableBuilder.BATCH_ROWS * 2 + 17)) {
      assertNotNull(table.schema().getFields().get(5).getDictionary(), "mode is dictionary-encoded");
      List<List<Object>> expected = ArrowRows.rows(table);
      Schema standard = StandardArrow.schema(table.schema());
      byte[] stream;
      byte[] file;
      try (TableReader reader = TableReader.borrowing(table, host)) {
        stream = ArrowRows.writeStream(reader);
      }
      try (TableReader reader = TableReader.borrowing(table, host)) {
        file = ArrowRows.writeFile(reader);
      }
      List<Integer> sizes = List.of(TableBuilder.BATCH_ROWS, TableBuilder.BATCH_ROWS, 17);
      for (ArrowRows.Stream read : List.of(ArrowRows.readStream(stream, host), ArrowRows.readFile(file, host))) {
        assertEquals(standard, read.schema());
        for (Field field : read.schema().getFields()) {
          assertNull(field.getDictionary(), field.getName());
        }
        assertEquals(sizes, read.batchRows());
        assertEquals(expected, read.rows());
      }
    }
  }

  @Test
  void emptyTablesWriteTheirSchemaOnly(EngineMemory memory) throws IOException {
    Schema encoded = new Schema(List.of(ColumnType.decimal(4).toField("x", true, null),
        ColumnType.STRING.toField("s", false, ArrowRows.encoding(3, 16))));
    try (Table table = Table.own(encoded, List.of(), Map.of())) {
      byte[] stream;
      byte[] file;
      try (TableReader reader = TableReader.borrowing(table, host)) {
        stream = ArrowRows.writeStream(reader);
      }
      try (TableReader reader = TableReader.borrowing(table, host)) {
        file = ArrowRows.writeFile(reader);
      }
      ArrowRows.Stream empty = new ArrowRows.Stream(StandardArrow.schema(encoded), List.of(), List.of());
      assertEquals(empty, ArrowRows.readStream(stream, host));
      assertEquals(empty, ArrowRows.readFile(file, host));
    }
  }

  /** {@code rows} rows of every type, some nulls, mode as dictionary codes and comment plain. */
  static Table mixed(EngineMemory memory, int rows) {
    try (TableBuilder builder = new TableBuilder(NAMES, TYPES,
        new boolean[] {false, false, false, false, false, true, false}, memory.arrow())) {
      for (int r = 0; r < rows; r++) {
        boolean gap = r % 11 == 3;
        builder.appendLong(r - rows / 2)
            .appendLong((long) r * 1_000_003L - Long.MAX_VALUE / 3)
            .appendDouble(r / 8.0);
        if (gap) {
          builder.appendNull().appendNull().appendNull().appendNull();
        } else {
          builder.appendLong(8000 + r % 3000)
              .appendLong((r % 2 == 0 ? 1 : -1) * (long) r * 12_345)
              .appendString(MODES[r % MODES.length].getBytes(StandardCharsets.UTF_8))
              .appendString(("comment " + r + " ü").getBytes(StandardCharsets.UTF_8));
        }
        builder.endRow();
      }
      return builder.build();
    }
  }
}
