package dev.memwall.core.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Int64Column;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@link ArrowFiles} on bad files and on tables used after close. */
@ExtendWith(LeakCheck.class)
class ArrowFilesFailureTest {
  @TempDir Path dir;

  @Test
  void emptyFileIsCorrupt(EngineMemory memory) throws IOException {
    Path file = Files.write(dir.resolve("empty.arrow"), new byte[0]);
    var e = assertThrows(CorruptArrowFileException.class, () -> ArrowFiles.map(file, memory));
    assertTrue(e.getMessage().contains("empty.arrow"), e.getMessage());
  }

  @Test
  void nonArrowFilesAreCorrupt(EngineMemory memory) throws IOException {
    Path csv = Files.writeString(dir.resolve("lineitem.csv"), "1|155190|7706|1|17|21168.23|0.04|0.02|N|O|\n".repeat(50));
    var e = assertThrows(CorruptArrowFileException.class, () -> ArrowFiles.map(csv, memory));
    assertTrue(e.getMessage().contains("lineitem.csv"), e.getMessage());
    // Arrow's magic at both ends but garbage between
    byte[] fake = new byte[256];
    byte[] magic = "ARROW1".getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(magic, 0, fake, 0, 6);
    System.arraycopy(magic, 0, fake, 250, 6);
    for (int i = 8; i < 246; i++) {
      fake[i] = (byte) (i * 37);
    }
    Path forged = Files.write(dir.resolve("forged.arrow"), fake);
    e = assertThrows(CorruptArrowFileException.class, () -> ArrowFiles.map(forged, memory));
    assertTrue(e.getMessage().contains("forged.arrow"), e.getMessage());
  }

  @Test
  void missingFileIsNotReportedAsCorrupt(EngineMemory memory) {
    Path missing = dir.resolve("missing.arrow");
    var e = assertThrows(IOException.class, () -> ArrowFiles.map(missing, memory));
    assertTrue(e.getMessage().contains("missing.arrow"), e.getMessage());
    assertTrue(e instanceof NoSuchFileException, "a missing file is not a corrupt one: " + e);
  }

  @Test
  void zeroBatchesAndEmptyBatchesRoundTrip(EngineMemory memory) throws IOException {
    Path none = dir.resolve("none.arrow");
    try (Table table = ArrowFilesTest.sample(memory, 0, 0)) {
      ArrowFiles.write(none, table, memory.arrow());
    }
    try (Table mapped = ArrowFiles.map(none, memory)) {
      assertEquals(0, mapped.batches().size());
      assertEquals(0, mapped.rowCount());
      assertEquals(List.of("id", "price", "flag"), mapped.schema().getFields().stream().map(f -> f.getName()).toList());
      assertEquals(1, mapped.dictionaries().size());
    }
    Path empty = dir.resolve("empty-batches.arrow");
    try (Table table = ArrowFilesTest.sample(memory, 3, 0)) {
      ArrowFiles.write(empty, table, memory.arrow());
    }
    try (Table mapped = ArrowFiles.map(empty, memory)) {
      assertEquals(3, mapped.batches().size());
      assertEquals(0, mapped.rowCount());
      assertEquals(0, mapped.batches().get(2).column("id").length());
    }
  }

  @Test
  void writeReplacesAnExistingFileAndLeavesNoTemporary(EngineMemory memory) throws IOException {
    Path file = dir.resolve("t.arrow");
    Files.writeString(file, "old contents");
    try (Table table = ArrowFilesTest.sample(memory, 1, 10)) {
      ArrowFiles.write(file, table, memory.arrow());
    }
    try (Table mapped = ArrowFiles.map(file, memory)) {
      assertEquals(10, mapped.rowCount());
    }
    assertFalse(Files.exists(dir.resolve("t.arrow.tmp")));
  }

  @Test
  void aFullDiskIsNamedWithItsFileAndLeavesTheTargetAsItWas(EngineMemory memory) throws IOException {
    Path full = Path.of("/dev/full"); // every write fails with ENOSPC
    Assumptions.assumeTrue(Files.isWritable(full), "no /dev/full here");
    Path file = Files.writeString(dir.resolve("t.arrow"), "old contents");
    Path temporary = Files.createSymbolicLink(dir.resolve("t.arrow.tmp"), full);
    try (Table table = ArrowFilesTest.sample(memory, 2, 100)) {
      FileSystemException e = assertThrows(FileSystemException.class, () -> ArrowFiles.write(file, table, memory.arrow()));
      assertEquals(temporary.toString(), e.getFile());
      assertEquals("No space left on device", e.getReason());
      assertEquals(temporary + ": No space left on device", e.getMessage());
    }
    assertFalse(Files.exists(temporary, LinkOption.NOFOLLOW_LINKS), "the temporary file must be removed");
    assertEquals("old contents", Files.readString(file));
  }

  @Test
  void mappedTableClosedTwiceAndReadAfterCloseFailsCleanly(EngineMemory memory) throws IOException {
    Path file = dir.resolve("t.arrow");
    try (Table table = ArrowFilesTest.sample(memory, 2, 100)) {
      ArrowFiles.write(file, table, memory.arrow());
    }
    Table mapped = ArrowFiles.map(file, memory);
    Int64Column id = (Int64Column) mapped.batches().get(1).column("id");
    DictionaryColumn flag = (DictionaryColumn) mapped.batches().get(1).column("flag");
    assertEquals(142L, id.get(42));
    assertEquals("F0", flag.getObject(42));
    assertTrue(memory.allocatedBytes() == 0, "a mapped table allocates no engine memory for its data");
    mapped.close();
    mapped.close();
    assertThrows(IllegalStateException.class, () -> id.get(42));
    assertThrows(IllegalStateException.class, () -> flag.code(42));
    assertThrows(IllegalStateException.class, () -> flag.getObject(1));
    assertThrows(RuntimeException.class, () -> ((org.apache.arrow.vector.BigIntVector) id.arrow()).get(42));
  }

  @SuppressWarnings("try") // the resource is the point of the test
  @Test
  void mapIsNotConfusedByAnotherTableWithSharedMappingsStillOpen(EngineMemory memory) throws IOException {
    Path a = dir.resolve("a.arrow");
    Path b = dir.resolve("b.arrow");
    try (Table table = ArrowFilesTest.sample(memory, 1, 50)) {
      ArrowFiles.write(a, table, memory.arrow());
    }
    try (Table table = ArrowFilesTest.sample(memory, 2, 20)) {
      ArrowFiles.write(b, table, memory.arrow());
    }
    try (Table first = ArrowFiles.map(a, memory); Table second = ArrowFiles.map(b, memory)) {
      Int64Column idA = (Int64Column) first.batches().get(0).column("id");
      Int64Column idB = (Int64Column) second.batches().get(1).column("id");
      assertEquals(49L, idA.get(49));
      assertEquals(39L, idB.get(19));
      second.close();
      assertEquals(49L, idA.get(49), "closing one mapping leaves another intact");
      assertThrows(IllegalStateException.class, () -> idB.get(19));
    }
  }
}
