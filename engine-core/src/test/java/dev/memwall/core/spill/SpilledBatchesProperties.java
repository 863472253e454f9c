package dev.memwall.core.spill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TypedRows;
import dev.memwall.core.vector.TypedRows.Row;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;

/**
 * A table's batches written as they are and read back: every readable type of {@link TypedRows} (limits,
 * nulls, a dictionary column) comes back as written, from any batch on, with empty batches left out;
 * writing takes no memory; a write the disk refuses fails by name and leaves no file; nothing leaks.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class SpilledBatchesProperties {
  /** Where the tries' spill directories go (each removes its own). */
  private static final Path ROOT = temporaryRoot();

  private static Path temporaryRoot() {
    try {
      Path root = Files.createTempDirectory("spilled-batches");
      root.toFile().deleteOnExit();
      return root;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Property(tries = 30)
  void batchesComeBackAsWrittenAndWritingTakesNoMemory(@ForAll long seed,
      @ForAll @IntRange(min = 1, max = 4) int batches, EngineMemory memory) throws Exception {
    Random random = new Random(seed);
    List<List<Row>> parts = new ArrayList<>();
    for (int b = 0; b < batches; b++) {
      parts.add(TypedRows.random(random, random.nextInt(4) == 0 ? 0 : random.nextInt(700)));
    }
    int from = random.nextInt(batches);
    Dictionary dictionary = TypedRows.dictionary(memory.arrow());
    List<VectorSchemaRoot> roots = new ArrayList<>();
    Path directory;
    try (var values = dictionary.getVector(); SpillDirectory spills = SpillDirectory.create(ROOT, Long.MAX_VALUE, "test")) {
      directory = spills.path();
      for (List<Row> part : parts) {
        roots.add(TypedRows.root(part, memory.arrow()));
      }
      List<List<Object>> expected = new ArrayList<>();
      parts.subList(from, batches).forEach(part -> part.forEach(row -> expected.add(row.expected())));
      try (Table table = Table.borrow(roots.getFirst().getSchema(), roots, TypedRows.provider(dictionary))) {
        long held = memory.budget().reservedBytes();
        long peak = memory.budget().peakBytes();
        try (SpilledBatches spilled = SpilledBatches.write(spills.newFile("held"), table, from, "test")) {
          assertEquals(held, memory.budget().reservedBytes(), "writing reserves nothing");
          assertEquals(peak, memory.budget().peakBytes(), "not even for a moment");
          assertEquals(expected.size(), spilled.rows());
          assertEquals(expected, readBack(spilled, memory));
          assertNull(spilled.next(memory.arrow()), "the end stays the end");
        }
        assertEquals(0, spills.liveFiles(), "closing deleted the file");
      } finally {
        roots.forEach(VectorSchemaRoot::close);
      }
    }
    assertFalse(Files.exists(directory), "the directory is gone with its files");
  }

  @Property(tries = 5)
  void aWriteTheDiskRefusesFailsByNameAndLeavesNoFile(@ForAll long seed, EngineMemory memory) throws Exception {
    List<Row> rows = TypedRows.random(new Random(seed), 2000);
    Dictionary dictionary = TypedRows.dictionary(memory.arrow());
    try (var values = dictionary.getVector(); VectorSchemaRoot batch = TypedRows.root(rows, memory.arrow());
        Table table = Table.borrow(batch.getSchema(), List.of(batch), TypedRows.provider(dictionary));
        SpillDirectory spills = SpillDirectory.create(ROOT, 4096, "held result")) {
      SpillException refused = assertThrows(SpillException.class,
          () -> SpilledBatches.write(spills.newFile("held"), table, 0, "held result"));
      assertEquals(SpillException.Reason.DISK_FULL, refused.reason());
      assertTrue(refused.getMessage().startsWith("held result"), refused.getMessage());
      assertEquals(0, spills.liveFiles(), "the part written is deleted");
      assertEquals(rows.size(), TypedRows.read(table).size(), "the table is as it was");
    }
  }

  /** The readable columns of every batch, in order, each batch closed by the next read. */
  private static List<List<Object>> readBack(SpilledBatches spilled, EngineMemory memory) {
    List<List<Object>> rows = new ArrayList<>();
    for (Table table = spilled.next(memory.arrow()); table != null; table = spilled.next(memory.arrow())) {
      assertEquals(1, table.batches().size());
      Batch batch = table.batches().getFirst();
      assertTrue(batch.rowCount() > 0, "empty batches are left out");
      for (int r = 0; r < batch.rowCount(); r++) {
        List<Object> row = new ArrayList<>();
        for (String column : TypedRows.COLUMNS) {
          row.add(batch.column(column).getObject(r));
        }
        rows.add(row);
      }
    }
    return rows;
  }
}
