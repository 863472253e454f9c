package dev.memwall.spark;

import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.verify.ResultComparator;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Arrow files of every type memwall reads, with nulls, for the connector tests: {@code id} (int32, unique,
 * never null), {@code i32}, {@code i64}, {@code f64} (with NaN and -0.0), {@code d} (date), {@code dec}
 * (memwall's scaled int64, scale 2), {@code dec128} (Decimal128(12, 3)), {@code s} (Utf8) and {@code ds}
 * (Utf8 dictionary-encoded with 8-bit codes). About one value in seven is null; {@code i64} stays below 2^43 so
 * that sums of it fit.
 */
final class TypedFiles {
  static final String[] WORDS = {"apple", "banana", "cherry", "dürüm", "", "élan", "fig", "grape", "zebra"};

  private TypedFiles() {}

  /** The schema of the files, in memory format (the dictionary column holds codes). */
  static Schema schema() {
    return new Schema(List.of(
        ColumnType.INT32.toField("id", false, null),
        ColumnType.INT32.toField("i32", true, null),
        ColumnType.INT64.toField("i64", true, null),
        ColumnType.FLOAT64.toField("f64", true, null),
        ColumnType.DATE.toField("d", true, null),
        ColumnType.decimal(2).toField("dec", true, null),
        new Field("dec128", FieldType.nullable(new ArrowType.Decimal(12, 3, 128)), null),
        ColumnType.STRING.toField("s", true, null),
        ColumnType.STRING.toField("ds", true, new DictionaryEncoding(0, false, new ArrowType.Int(8, true)))));
  }

  /**
   * Writes {@code file}: rows with ids {@code firstId, firstId + 1, ...} in batches of the given sizes (a 0
   * makes an empty batch), values drawn from {@code seed}.
   */
  static void write(Path file, int firstId, int[] batchRows, long seed, EngineMemory memory) throws IOException {
    BufferAllocator allocator = memory.arrow();
    Random random = new Random(seed);
    Schema schema = schema();
    VarCharVector words = new VarCharVector("dictionary-0", allocator);
    words.allocateNew();
    for (int i = 0; i < WORDS.length; i++) {
      words.setSafe(i, WORDS[i].getBytes(StandardCharsets.UTF_8));
    }
    words.setValueCount(WORDS.length);
    Dictionary dictionary = new Dictionary(words, schema.findField("ds").getDictionary());
    List<VectorSchemaRoot> roots = new ArrayList<>();
    int id = firstId;
    for (int rows : batchRows) {
      VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
      roots.add(root);
      for (int row = 0; row < rows; row++, id++) {
        final int r = row;
        ((IntVector) root.getVector("id")).setSafe(r, id);
        boolean[] nulls = new boolean[9];
        for (int c = 1; c < nulls.length; c++) {
          nulls[c] = random.nextInt(7) == 0;
        }
        set(nulls[1], root.getVector("i32"), r, () -> ((IntVector) root.getVector("i32")).setSafe(r,
            random.nextInt(2001) - 1000));
        set(nulls[2], root.getVector("i64"), r, () -> ((BigIntVector) root.getVector("i64")).setSafe(r,
            random.nextLong() >> (20 + random.nextInt(44))));
        set(nulls[3], root.getVector("f64"), r, () -> ((Float8Vector) root.getVector("f64")).setSafe(r,
            switch (random.nextInt(20)) {
              case 0 -> Double.NaN;
              case 1 -> -0.0;
              default -> random.nextGaussian() * 1000;
            }));
        set(nulls[4], root.getVector("d"), r, () -> ((DateDayVector) root.getVector("d")).setSafe(r,
            8000 + random.nextInt(3000)));
        set(nulls[5], root.getVector("dec"), r, () -> ((BigIntVector) root.getVector("dec")).setSafe(r,
            random.nextInt(2_000_001) - 1_000_000));
        set(nulls[6], root.getVector("dec128"), r, () -> ((DecimalVector) root.getVector("dec128")).setSafe(r,
            BigDecimal.valueOf(random.nextLong() % 100_000_000_000L, 3)));
        set(nulls[7], root.getVector("s"), r, () -> ((VarCharVector) root.getVector("s")).setSafe(r,
            (WORDS[random.nextInt(WORDS.length)] + random.nextInt(50)).getBytes(StandardCharsets.UTF_8)));
        set(nulls[8], root.getVector("ds"), r, () -> ((TinyIntVector) root.getVector("ds")).setSafe(r,
            random.nextInt(WORDS.length)));
      }
      root.setRowCount(rows);
    }
    try (Table table = Table.own(schema, roots, Map.of(0L, dictionary))) {
      ArrowFiles.write(file, table, allocator);
    }
  }

  private static void set(boolean isNull, FieldVector vector, int row, Runnable value) {
    if (isNull) {
      switch (vector) {
        case BaseFixedWidthVector fixed -> fixed.setNull(row);
        case BaseVariableWidthVector variable -> variable.setNull(row);
        default -> throw new IllegalArgumentException(vector.toString());
      }
    } else {
      value.run();
    }
  }

  /** Every row of {@code files} as memwall reads them (Java values, null for null), in file and row order. */
  static List<List<Object>> read(List<Path> files, EngineMemory memory) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    for (Path file : files) {
      try (Table table = ArrowFiles.map(file, memory)) {
        rows.addAll(ResultComparator.rows(table));
      }
    }
    return rows;
  }
}
