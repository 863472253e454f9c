package dev.memwall.core.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The structural validation against a plain reference: a batch of a string column and a
 * dictionary-encoded column gets one adversarial write (any value into any string offset, or any
 * value into any dictionary index); the validation must refuse it, naming the batch and the column,
 * exactly when the reference finds the offsets decreasing, negative or past the data, or an index
 * outside the dictionary, and accept it otherwise.
 */
class ArrowStructureProperties {
  private static final Path FILE = Path.of("adversarial.arrow");

  @Property(tries = 300)
  void refusesExactlyTheBrokenOffsetsAndIndices(@ForAll @Size(min = 1, max = 40) List<@AlphaChars @StringLength(max = 12) String> strings,
      @ForAll @IntRange(min = 1, max = 8) int dictionarySize, @ForAll boolean corruptOffsets,
      @ForAll @IntRange(min = 0, max = 1000) int position, @ForAll int value) throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
         VarCharVector text = new VarCharVector("s", allocator);
         VarCharVector values = new VarCharVector("dictionary", allocator);
         TinyIntVector codes = new TinyIntVector("d", new FieldType(false, new ArrowType.Int(8, true),
             new DictionaryEncoding(1, false, new ArrowType.Int(8, true))), allocator)) {
      int rows = strings.size();
      text.allocateNew(rows);
      codes.allocateNew(rows);
      for (int row = 0; row < rows; row++) {
        text.setSafe(row, strings.get(row).getBytes(StandardCharsets.US_ASCII));
        codes.set(row, row % dictionarySize);
      }
      text.setValueCount(rows);
      codes.setValueCount(rows);
      values.allocateNew(dictionarySize);
      for (int code = 0; code < dictionarySize; code++) {
        values.setSafe(code, ("v" + code).getBytes(StandardCharsets.US_ASCII));
      }
      values.setValueCount(dictionarySize);
      Dictionary dictionary = new Dictionary(values, codes.getField().getDictionary());
      boolean valid;
      if (corruptOffsets) {
        int at = position % (rows + 1);
        text.getOffsetBuffer().setInt(4L * at, value);
        valid = offsetsValid(text, rows);
      } else {
        int row = position % rows;
        byte code = (byte) value;
        codes.set(row, code);
        valid = code >= 0 && code < dictionarySize;
      }
      VectorSchemaRoot root = new VectorSchemaRoot(List.of(text, codes));
      if (valid) {
        ArrowStructure.check("Arrow file", FILE, List.of(root), 0, Map.of(1L, dictionary));
      } else {
        CorruptArrowFileException e = assertThrows(CorruptArrowFileException.class,
            () -> ArrowStructure.check("Arrow file", FILE, List.of(root), 0, Map.of(1L, dictionary)));
        String column = corruptOffsets ? "s" : "d";
        assertTrue(e.getMessage().startsWith("corrupt Arrow file " + FILE + ": record batch 0, column " + column + ": "),
            e.getMessage());
      }
    }
  }

  /** The reference: offsets start at 0 or more, never decrease, and end inside the data buffer. */
  private static boolean offsetsValid(VarCharVector vector, int rows) {
    long previous = vector.getOffsetBuffer().getInt(0);
    if (previous < 0) {
      return false;
    }
    for (int i = 1; i <= rows; i++) {
      long offset = vector.getOffsetBuffer().getInt(4L * i);
      if (offset < previous) {
        return false;
      }
      previous = offset;
    }
    return previous <= vector.getDataBuffer().capacity();
  }

  @Property(tries = 20)
  void anIntactBatchPasses(@ForAll @Size(max = 30) List<@AlphaChars String> strings) throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
         VarCharVector text = new VarCharVector("s", allocator)) {
      text.allocateNew(Math.max(1, strings.size()));
      for (int row = 0; row < strings.size(); row++) {
        text.setSafe(row, strings.get(row).getBytes(StandardCharsets.US_ASCII));
      }
      text.setValueCount(strings.size());
      ArrowStructure.check("Arrow file", FILE, List.of(new VectorSchemaRoot(List.of(text))), 0, Map.of());
      assertEquals(strings.size(), text.getValueCount());
    }
  }
}
