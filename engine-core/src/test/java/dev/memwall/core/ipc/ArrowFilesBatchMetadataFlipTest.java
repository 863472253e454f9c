package dev.memwall.core.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exhaustive: every byte of every record batch's and dictionary batch's metadata (the message
 * header: lengths, field nodes, buffer offsets and sizes, compression) of a small file flipped three
 * ways and set to 1, the file holding nulls, strings, a dictionary, booleans and a nested list column memwall
 * leaves out. Mapping must fail with a {@link CorruptArrowFileException} naming the file and free
 * everything it took, or yield a table whose every value reads without error: a field node shorter
 * than its batch once made Arrow's loader write into the read-only mapping and kill the JVM, and a
 * buffer shorter than its node made it reallocate (and leak the new buffer when the copy failed), also a
 * validity bitmap of a column without nulls, which the loader takes as written when it is not empty. A flip can still change values silently (a null
 * count of 0 makes every row valid): that is what checksums are for, and is counted, not failed.
 */
@ExtendWith(LeakCheck.class)
class ArrowFilesBatchMetadataFlipTest {
  private static final int ROWS = 100; // enough that a one-byte validity bitmap is far too short

  @TempDir Path dir;

  @Test
  void everyBatchMetadataFlipIsDetectedOrReadsCleanly(EngineMemory memory) throws IOException {
    Path original = dir.resolve("original.arrow");
    write(original, memory.arrow());
    List<List<Object>> expected;
    try (Table table = ArrowFiles.map(original, memory)) {
      expected = ArrowFilesFooterFlipTest.contents(table);
      assertEquals(List.of("id", "name", "flag", "ok"), expected.getFirst().stream().map(String::valueOf)
          .map(s -> s.split(":")[0]).toList(), "the list column is left out, the others read");
    }
    List<ArrowBlock> blocks = new ArrayList<>();
    try (FileChannel channel = FileChannel.open(original, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(channel, memory.arrow())) {
      blocks.addAll(reader.getDictionaryBlocks());
      blocks.addAll(reader.getRecordBlocks());
    }
    byte[] bytes = Files.readAllBytes(original);
    Path flipped = dir.resolve("flipped.arrow");
    int detected = 0;
    int unchanged = 0;
    int altered = 0;
    for (ArrowBlock block : blocks) {
      for (long at = block.getOffset(); at < block.getOffset() + block.getMetadataLength(); at++) {
        // the last mask sets the byte to 1: a buffer's length of 1 is shorter than any validity bitmap here
        for (int mask : new int[] {0x01, 0x80, 0xFF, (bytes[(int) at] ^ 0x01) & 0xFF}) {
          byte[] corrupt = bytes.clone();
          corrupt[(int) at] ^= (byte) mask;
          Files.write(flipped, corrupt);
          String fault = "byte " + at + " ^ " + mask + " of the block at " + block.getOffset();
          try (Table mapped = ArrowFiles.map(flipped, memory)) {
            List<List<Object>> actual;
            try {
              actual = ArrowFilesFooterFlipTest.contents(mapped);
            } catch (RuntimeException e) {
              throw new AssertionError(fault + " mapped, then failed on read", e);
            }
            if (expected.equals(actual)) {
              unchanged++;
            } else {
              altered++;
            }
          } catch (CorruptArrowFileException e) {
            assertTrue(e.getMessage().contains("flipped.arrow"), e.getMessage());
            detected++;
          }
          assertEquals(0, memory.allocatedBytes(), fault + " leaked");
        }
      }
    }
    assertTrue(detected > 0, "no flip was detected at all");
    System.out.println("batch metadata flips: " + detected + " detected, " + unchanged + " unchanged, " + altered
        + " read with other values");
  }

  /**
   * Two batches of {@link #ROWS} rows: id (int64, every third null), name (utf8, every fourth
   * null), flag (int8 codes of a three-string dictionary), ok (bool) and ints (list of int32, which
   * memwall leaves out).
   */
  private static void write(Path file, BufferAllocator allocator) throws IOException {
    DictionaryEncoding encoding = new DictionaryEncoding(1, false, new ArrowType.Int(8, true));
    try (VarCharVector values = new VarCharVector("flag-dictionary", allocator);
        BigIntVector id = new BigIntVector("id", allocator);
        VarCharVector name = new VarCharVector("name", allocator);
        TinyIntVector flag = new TinyIntVector("flag", new FieldType(false, encoding.getIndexType(), encoding),
            allocator);
        BitVector ok = new BitVector("ok", allocator);
        ListVector ints = ListVector.empty("ints", allocator)) {
      for (int i = 0; i < 3; i++) {
        values.setSafe(i, ("F" + i).getBytes(StandardCharsets.UTF_8));
      }
      values.setValueCount(3);
      ints.addOrGetVector(FieldType.nullable(new ArrowType.Int(32, true))); // before the schema is taken
      DictionaryProvider.MapDictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider();
      provider.put(new Dictionary(values, encoding));
      try (VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(id, name, flag, ok, ints));
          FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          ArrowFileWriter writer = new ArrowFileWriter(root, provider, channel)) {
        writer.start();
        for (int b = 0; b < 2; b++) {
          root.allocateNew();
          UnionListWriter list = ints.getWriter();
          for (int i = 0; i < ROWS; i++) {
            int value = b * ROWS + i;
            if (i % 3 != 0) {
              id.setSafe(i, value * 1_000_003L);
            }
            if (i % 4 != 1) {
              name.setSafe(i, ("name-" + value).getBytes(StandardCharsets.UTF_8));
            }
            flag.setSafe(i, value % 3);
            ok.setSafe(i, value % 2);
            list.setPosition(i);
            list.startList();
            for (int k = 0; k < i % 3; k++) {
              list.writeInt(value + k);
            }
            list.endList();
          }
          root.setRowCount(ROWS);
          writer.writeBatch();
        }
        writer.end();
      }
    }
  }
}
