package dev.memwall.core.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DecimalColumn;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Int64Column;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(LeakCheck.class)
class ArrowFilesTest {
  @TempDir Path dir;

  @Test
  void roundTripIsZeroCopyAndKeepsDictionariesAndDecimals(EngineMemory memory) throws IOException {
    Path file = dir.resolve("t.arrow");
    try (Table table = sample(memory, 2, 1000)) {
      ArrowFiles.write(file, table, memory.arrow());
    }
    try (Table mapped = ArrowFiles.map(file, memory)) {
      assertEquals(2000, mapped.rowCount());
      var batch = mapped.batches().get(1);
      assertEquals(1000L + 7, ((Int64Column) batch.column("id")).get(7));
      assertEquals(new BigDecimal("10.07"), ((DecimalColumn) batch.column("price")).getDecimal(7));
      DictionaryColumn flag = (DictionaryColumn) batch.column("flag");
      assertEquals(7 % 3, flag.code(7));
      assertEquals("F" + (7 % 3), flag.getObject(7));
      assertTrue(batch.column("id").arrow().getDataBuffer().memoryAddress() > 0);
    }
  }

  @Test
  void truncatedFileIsReportedWithItsName(EngineMemory memory) throws IOException {
    Path file = dir.resolve("t.arrow");
    try (Table table = sample(memory, 1, 100)) {
      ArrowFiles.write(file, table, memory.arrow());
    }
    byte[] bytes = Files.readAllBytes(file);
    Path truncated = dir.resolve("truncated.arrow");
    Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    var e = assertThrows(CorruptArrowFileException.class, () -> ArrowFiles.map(truncated, memory));
    assertTrue(e.getMessage().contains("truncated.arrow"), e.getMessage());
  }

  static Table sample(EngineMemory memory, int batches, int rows) {
    var encoding = new DictionaryEncoding(1, false, new ArrowType.Int(8, true));
    Schema schema = new Schema(List.of(
        ColumnType.INT64.toField("id", false, null),
        ColumnType.decimal(2).toField("price", false, null),
        ColumnType.STRING.toField("flag", false, encoding)));
    VarCharVector values = new VarCharVector("flag-dictionary", memory.arrow());
    values.allocateNew(3);
    for (int i = 0; i < 3; i++) {
      values.setSafe(i, ("F" + i).getBytes(StandardCharsets.UTF_8));
    }
    values.setValueCount(3);
    Dictionary dictionary = new Dictionary(values, encoding);
    List<VectorSchemaRoot> roots = new java.util.ArrayList<>();
    for (int b = 0; b < batches; b++) {
      VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow());
      root.allocateNew();
      BigIntVector id = (BigIntVector) root.getVector("id");
      BigIntVector price = (BigIntVector) root.getVector("price");
      TinyIntVector flag = (TinyIntVector) root.getVector("flag");
      for (int i = 0; i < rows; i++) {
        id.setSafe(i, (long) b * rows + i);
        price.setSafe(i, 1000 + i);
        flag.setSafe(i, i % 3);
      }
      root.setRowCount(rows);
      roots.add(root);
    }
    return Table.own(schema, roots, Map.of(1L, dictionary));
  }
}
