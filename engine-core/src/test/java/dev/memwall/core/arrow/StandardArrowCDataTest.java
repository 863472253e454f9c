package dev.memwall.core.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.io.IOException;
import java.util.List;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A {@link TableReader} exported through the Arrow C stream interface ({@link Data#exportArrayStream})
 * and imported back ({@link Data#importArrayStream}), as a host in another language would consume
 * it: the standard schema and every value come back, and releasing the stream closes the reader and,
 * since it owns it, the table.
 */
@ExtendWith(LeakCheck.class)
class StandardArrowCDataTest {

  @Test
  void exportedStreamImportsBackEqual(EngineMemory memory) throws IOException {
    try (BufferAllocator host = new RootAllocator()) {
      Table table = StandardArrowIpcTest.mixed(memory, TableBuilder.BATCH_ROWS + 123);
      List<List<Object>> expected = ArrowRows.rows(table);
      var schema = StandardArrow.schema(table.schema());
      try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(host)) {
        Data.exportArrayStream(host, TableReader.of(table, host), stream);
        try (ArrowReader imported = Data.importArrayStream(host, stream)) {
          ArrowRows.Stream read = ArrowRows.read(imported);
          assertEquals(schema, read.schema());
          assertEquals(List.of(TableBuilder.BATCH_ROWS, 123), read.batchRows());
          assertEquals(expected, read.rows());
        }
      }
      assertEquals(0, memory.arrow().getAllocatedMemory(), "releasing the stream closed the table");
      assertEquals(0, host.getAllocatedMemory(), "host allocator leaked");
    }
  }

  @Test
  void emptyTableExportsItsSchema(EngineMemory memory) throws IOException {
    try (BufferAllocator host = new RootAllocator()) {
      try (TableBuilder builder = new TableBuilder(StandardArrowIpcTest.NAMES, StandardArrowIpcTest.TYPES,
          memory.arrow()); Table table = builder.build(); ArrowArrayStream stream = ArrowArrayStream.allocateNew(host)) {
        Data.exportArrayStream(host, TableReader.borrowing(table, host), stream);
        try (ArrowReader imported = Data.importArrayStream(host, stream)) {
          assertEquals(new ArrowRows.Stream(StandardArrow.schema(table.schema()), List.of(), List.of()),
              ArrowRows.read(imported));
        }
      }
      assertEquals(0, host.getAllocatedMemory(), "host allocator leaked");
    }
  }
}
