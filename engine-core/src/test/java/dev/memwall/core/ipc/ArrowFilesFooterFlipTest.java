package dev.memwall.core.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exhaustive: every byte of the footer region of a small file (footer flatbuffer, footer length,
 * trailing magic) flipped three ways. Mapping must fail with a {@link CorruptArrowFileException}
 * naming the file and free everything it took, or yield a table that reads back exactly.
 */
@ExtendWith(LeakCheck.class)
class ArrowFilesFooterFlipTest {
  @TempDir Path dir;

  @Test
  void everyFooterByteFlipIsDetectedOrHarmless(EngineMemory memory) throws IOException {
    Path original = dir.resolve("original.arrow");
    List<List<Object>> expected;
    try (Table table = ArrowFilesTest.sample(memory, 2, 5)) {
      ArrowFiles.write(original, table, memory.arrow());
      expected = contents(table);
    }
    byte[] bytes = Files.readAllBytes(original);
    int footerLength = ByteBuffer.wrap(bytes, bytes.length - 10, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    Path flipped = dir.resolve("flipped.arrow");
    int detected = 0;
    int harmless = 0;
    for (int at = bytes.length - 10 - footerLength; at < bytes.length; at++) {
      for (int mask : new int[] {0x01, 0x80, 0xFF}) {
        byte[] corrupt = bytes.clone();
        corrupt[at] ^= (byte) mask;
        Files.write(flipped, corrupt);
        try (Table mapped = ArrowFiles.map(flipped, memory)) {
          List<List<Object>> actual;
          try {
            actual = contents(mapped);
          } catch (RuntimeException e) {
            throw new AssertionError("byte " + at + " ^ " + mask + " mapped, then failed on read", e);
          }
          if (!expected.equals(actual)) {
            fail("byte " + at + " ^ " + mask + " of the footer went undetected: read " + actual);
          }
          harmless++;
        } catch (CorruptArrowFileException e) {
          assertTrue(e.getMessage().contains("flipped.arrow"), e.getMessage());
          detected++;
        }
        assertEquals(0, memory.allocatedBytes(), "byte " + at + " ^ " + mask + " leaked");
      }
    }
    assertTrue(detected > 0, "no flip was detected at all");
    System.out.println("footer flips: " + detected + " detected, " + harmless + " harmless");
  }

  /** Column names, then every value of every batch, as Java objects. */
  static List<List<Object>> contents(Table table) {
    List<List<Object>> rows = new ArrayList<>();
    rows.add(new ArrayList<>(table.schema().getFields().stream().map(f -> (Object) f.getName()).toList()));
    for (var batch : table.batches()) {
      for (int i = 0; i < batch.rowCount(); i++) {
        List<Object> row = new ArrayList<>();
        for (Column column : batch.columns()) {
          row.add(Objects.toString(column.getObject(i)) + ":" + column.type());
        }
        rows.add(row);
      }
    }
    return rows;
  }
}
