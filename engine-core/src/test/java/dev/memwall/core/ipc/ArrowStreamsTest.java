package dev.memwall.core.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ipc.ForeignArrowFiles.Layout;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.vector.DecimalColumn;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Int64Column;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ArrowFiles#map} given an Arrow IPC <em>stream</em> (what {@code ArrowStreamWriter} and
 * pyarrow's {@code new_stream} write) maps it as it maps a file, instead of calling it corrupt.
 */
@ExtendWith(LeakCheck.class)
class ArrowStreamsTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(value = Layout.class, names = {"STREAM", "LEGACY_STREAM"})
  void streamsAreReadWithTheirDictionariesAndDecimals(Layout layout, EngineMemory memory) throws IOException {
    Path file = dir.resolve("t.arrows");
    try (Table table = ArrowFilesTest.sample(memory, 3, 1000)) {
      ForeignArrowFiles.write(file, layout, table, memory.arrow());
    }
    assertEquals(0, memory.allocatedBytes());
    try (Table read = ArrowFiles.map(file, memory)) {
      assertEquals(3000, read.rowCount());
      assertEquals(3, read.batches().size());
      assertEquals(List.of("id", "price", "flag"), read.schema().getFields().stream().map(Field::getName).toList());
      var batch = read.batches().get(2);
      assertEquals(2000L + 7, ((Int64Column) batch.column("id")).get(7));
      assertEquals(new BigDecimal("10.07"), ((DecimalColumn) batch.column("price")).getDecimal(7));
      DictionaryColumn flag = (DictionaryColumn) batch.column("flag");
      assertEquals(7 % 3, flag.code(7));
      assertEquals("F" + (7 % 3), flag.getObject(7));
      assertEquals(0, memory.allocatedBytes(), "a stream is mapped zero-copy, as a file is");
    }
    assertEquals(0, memory.allocatedBytes());
  }

  @Test
  void streamsWithoutBatchesAndWithEmptyBatchesAreRead(EngineMemory memory) throws IOException {
    Path none = dir.resolve("none.arrows");
    try (Table table = ArrowFilesTest.sample(memory, 0, 0)) {
      ForeignArrowFiles.write(none, Layout.STREAM, table, memory.arrow());
    }
    try (Table read = ArrowFiles.map(none, memory)) {
      assertEquals(0, read.batches().size());
      assertEquals(List.of("id", "price", "flag"), read.schema().getFields().stream().map(Field::getName).toList());
    }
    Path empty = dir.resolve("empty-batches.arrows");
    try (Table table = ArrowFilesTest.sample(memory, 2, 0)) {
      ForeignArrowFiles.write(empty, Layout.STREAM, table, memory.arrow());
    }
    try (Table read = ArrowFiles.map(empty, memory)) {
      assertEquals(2, read.batches().size());
      assertEquals(0, read.rowCount());
    }
  }

  @Test
  void truncatedStreamsAreCorruptAndLeakNothing(EngineMemory memory) throws IOException {
    Path file = dir.resolve("t.arrows");
    try (Table table = ArrowFilesTest.sample(memory, 2, 1000)) {
      ForeignArrowFiles.write(file, Layout.STREAM, table, memory.arrow());
    }
    byte[] bytes = Files.readAllBytes(file);
    for (int length : new int[] {4, 8, 100, bytes.length / 2, bytes.length - 9}) {
      Path truncated = Files.write(dir.resolve("truncated-" + length + ".arrows"), Arrays.copyOf(bytes, length));
      var e = assertThrows(CorruptArrowFileException.class, () -> ArrowFiles.map(truncated, memory).close());
      assertTrue(e.getMessage().contains(truncated.toString()), e.getMessage());
      assertTrue(e.getMessage().contains("stream"), e.getMessage());
      assertEquals(0, memory.allocatedBytes());
    }
  }

  @Test
  void aBodyLengthPastTheEndIsCaughtBeforeItIsAllocated(EngineMemory data) throws IOException {
    Path file = dir.resolve("t.arrows");
    try (Table table = ArrowFilesTest.sample(data, 1, 1000)) {
      ForeignArrowFiles.write(file, Layout.STREAM, table, data.arrow());
    }
    byte[] bytes = Files.readAllBytes(file);
    // the first record batch's message: the body length is the flatbuffer's only long equal to it
    ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    int schemaLength = buffer.getInt(4);
    int dictionaryAt = 8 + schemaLength;
    int dictionaryLength = buffer.getInt(dictionaryAt + 4);
    long dictionaryBody = bodyLengthOf(buffer, dictionaryAt + 8, dictionaryLength, bytes.length);
    int batchAt = (int) (dictionaryAt + 8 + dictionaryLength + dictionaryBody);
    int batchLength = buffer.getInt(batchAt + 4);
    long body = bodyLengthOf(buffer, batchAt + 8, batchLength, bytes.length);
    for (int p = batchAt + 8; p + 8 <= batchAt + 8 + batchLength; p++) {
      if (buffer.getLong(p) == body) {
        buffer.putLong(p, 1L << 40);
      }
    }
    Path forged = Files.write(dir.resolve("forged.arrows"), bytes);
    EngineMemory memory = EngineMemory.create(MemoryBudget.of("bounded", 64L << 20));
    var e = assertThrows(CorruptArrowFileException.class, () -> ArrowFiles.map(forged, memory).close());
    assertTrue(e.getMessage().contains("forged.arrows") && e.getMessage().contains("stream"), e.getMessage());
    assertTrue(memory.budget().peakBytes() < 1 << 20, "no body-sized allocation: " + memory.budget().peakBytes());
    memory.close();
  }

  @Test
  void aDictionaryReplacedAfterTheFirstBatchIsRefusedByName(EngineMemory memory) throws IOException {
    Path file = dir.resolve("replaced.arrows");
    var encoding = new DictionaryEncoding(7, false, new ArrowType.Int(8, true));
    try (VarCharVector values = new VarCharVector("flag-dictionary", memory.arrow());
        TinyIntVector flag = new TinyIntVector("flag", new FieldType(true, new ArrowType.Int(8, true), encoding),
            memory.arrow());
        VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(flag));
        var channel = ForeignArrowFiles.open(file);
        var writer = ForeignArrowFiles.writer(Layout.STREAM, root,
            new DictionaryProvider.MapDictionaryProvider(new Dictionary(values, encoding)), channel)) {
      writer.start();
      for (String value : new String[] {"before", "after"}) {
        values.allocateNew();
        values.setSafe(0, value.getBytes(StandardCharsets.UTF_8));
        values.setValueCount(1);
        root.allocateNew();
        flag.setSafe(0, 0);
        root.setRowCount(1);
        writer.writeBatch();
      }
      writer.end();
    }
    var e = assertThrows(CorruptArrowFileException.class, () -> ArrowFiles.map(file, memory).close());
    assertTrue(e.getMessage().contains("replaced.arrows") && e.getMessage().contains("dictionary 7"), e.getMessage());
    assertEquals(0, memory.allocatedBytes());
  }

  @Test
  void filesThatAreNeitherAreStillCorrupt(EngineMemory memory) throws IOException {
    // starts like a legacy stream whose first message length fits the file, but is no Arrow message
    byte[] bytes = new byte[64];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 16);
    Path file = Files.write(dir.resolve("garbage.bin"), bytes);
    var e = assertThrows(CorruptArrowFileException.class, () -> ArrowFiles.map(file, memory).close());
    assertTrue(e.getMessage().contains("garbage.bin"), e.getMessage());
  }

  /** The message at {@code at} (metadata of {@code length} bytes) as a flatbuffer: its body length field. */
  private static long bodyLengthOf(ByteBuffer file, int at, int length, int fileSize) {
    var message = org.apache.arrow.flatbuf.Message.getRootAsMessage(
        file.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(at).limit(at + length).slice().order(ByteOrder.LITTLE_ENDIAN));
    long body = message.bodyLength();
    assertTrue(body > 0 && body < fileSize, "body " + body);
    return body;
  }
}
