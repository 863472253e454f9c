package dev.memwall.core.ipc;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.vector.Table;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * {@link ArrowFiles#checkStructure}: a reader of some batches and columns of a file validates just those,
 * and a broken string offset in them is refused naming the file's batch number and the column.
 */
class PartialStructureCheckTest {
  private static final Path FILE = Path.of("parts.arrow");

  @Test
  void checksOnlyTheBatchesAndColumnsRead() {
    List<VectorSchemaRoot> roots = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int batch = 0; batch < 3; batch++) {
        VarCharVector text = new VarCharVector("s", allocator);
        IntVector numbers = new IntVector("i", allocator);
        for (int row = 0; row < 5; row++) {
          text.setSafe(row, ("b" + batch + "r" + row).getBytes(StandardCharsets.US_ASCII));
          numbers.setSafe(row, row);
        }
        text.setValueCount(5);
        numbers.setValueCount(5);
        roots.add(new VectorSchemaRoot(List.of(text, numbers)));
      }
      ((VarCharVector) roots.get(1).getVector("s")).getOffsetBuffer().setInt(4L * 3, 1 << 20); // past the data
      var schema = roots.getFirst().getSchema();
      try (Table lastTwo = Table.borrow(schema, roots.subList(1, 3), null);
          Table last = Table.borrow(schema, roots.subList(2, 3), null)) {
        CorruptArrowFileException e = assertThrows(CorruptArrowFileException.class,
            () -> ArrowFiles.checkStructure(FILE, lastTwo, 1, List.of("i", "s")));
        assertTrue(e.getMessage().contains("parts.arrow") && e.getMessage().contains("record batch 1, column s"),
            e.getMessage());
        assertDoesNotThrow(() -> ArrowFiles.checkStructure(FILE, lastTwo, 1, List.of("i")), "s is not read");
        assertDoesNotThrow(() -> ArrowFiles.checkStructure(FILE, last, 2, List.of("i", "s", "absent")),
            "batch 1 is not read");
      } finally {
        roots.forEach(VectorSchemaRoot::close);
      }
    }
  }
}
