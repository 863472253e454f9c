package dev.memwall.core.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Write/map round trips of random tables (0 to 4 batches of 0 to 150 rows, every column type,
 * nulls, a dictionary-encoded column) and random corruption of written files.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class ArrowFilesProperties {
  /** One generated row: int32, int64, float64, date, decimal(2) unscaled, string, dictionary pick. */
  record Row(Integer i32, Long i64, Double f64, Integer date, Long price, String s, Integer flag) {}

  /** A generated table: its dictionary entries, code width and batches of rows. */
  record Spec(List<String> dictionary, int codeBits, List<List<Row>> batches) {}

  static final String[] COLUMNS = {"i32", "i64", "f64", "d", "price", "s", "flag"};

  @Provide
  Arbitrary<Spec> tables() {
    Arbitrary<String> strings = Arbitraries.oneOf(Arbitraries.of("", "é", "😀", "AIR", "REG AIR"),
        Arbitraries.strings().alpha().numeric().ofMaxLength(10));
    Arbitrary<Row> row = Combinators.combine(
        Arbitraries.integers().injectNull(0.1),
        Arbitraries.longs().injectNull(0.1),
        Arbitraries.oneOf(Arbitraries.doubles(), Arbitraries.of(Double.NaN, Double.NEGATIVE_INFINITY)).injectNull(0.1),
        Arbitraries.integers().between(-100_000, 100_000).injectNull(0.1),
        Arbitraries.longs().between(-1_000_000_000L, 1_000_000_000L).injectNull(0.1),
        strings.injectNull(0.1),
        Arbitraries.integers().between(0, 1000).injectNull(0.1))
        .as(Row::new);
    Arbitrary<List<List<Row>>> batches = row.list().ofMaxSize(150).list().ofMaxSize(4);
    return Combinators.combine(strings.list().ofMinSize(1).ofMaxSize(40), Arbitraries.of(8, 16, 32), batches)
        .as((dict, bits, b) -> new Spec(List.copyOf(new LinkedHashSet<>(dict)), bits, b));
  }

  @Property(tries = 60)
  void writeThenMapGivesBackEveryValue(@ForAll("tables") Spec spec, EngineMemory memory) throws IOException {
    Path dir = Files.createTempDirectory("arrow-files-property");
    try {
      Path file = dir.resolve("t.arrow");
      try (Table table = build(spec, memory)) {
        ArrowFiles.write(file, table, memory.arrow());
      }
      try (Table mapped = ArrowFiles.map(file, memory)) {
        assertMatches(spec, mapped);
      }
    } finally {
      deleteAll(dir);
    }
  }

  /**
   * Random byte flips in the footer region (schema, block index, footer length, magic): mapping
   * either fails with an IOException naming the file, or yields a table that reads back exactly.
   */
  @Property(tries = 60)
  void footerCorruptionIsDetectedOrHarmless(@ForAll("tables") Spec spec, @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 4) int flips, EngineMemory memory) throws IOException {
    Path dir = Files.createTempDirectory("arrow-files-corrupt");
    try {
      Path file = dir.resolve("flipped.arrow");
      try (Table table = build(spec, memory)) {
        ArrowFiles.write(file, table, memory.arrow());
      }
      byte[] bytes = Files.readAllBytes(file);
      int footerLength = java.nio.ByteBuffer.wrap(bytes, bytes.length - 10, 4)
          .order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
      int regionStart = Math.max(0, bytes.length - 10 - footerLength);
      Random random = new Random(seed);
      byte[] original = bytes.clone();
      for (int i = 0; i < flips; i++) {
        int at = regionStart + random.nextInt(bytes.length - regionStart);
        bytes[at] ^= (byte) (1 + random.nextInt(255));
      }
      Files.write(file, bytes);
      Table mapped;
      try {
        mapped = ArrowFiles.map(file, memory);
      } catch (IOException e) {
        assertTrue(e.getMessage().contains("flipped.arrow"), e.getMessage());
        return;
      }
      try (mapped) {
        try {
          assertMatches(spec, mapped);
        } catch (AssertionError | RuntimeException wrong) {
          fail("corruption at " + diff(original, bytes) + " went undetected", wrong);
        }
      }
    } finally {
      deleteAll(dir);
    }
  }

  @SuppressWarnings("try") // the resource is the point of the test
  @Property(tries = 60)
  void truncationIsReportedWithTheFileName(@ForAll("tables") Spec spec, @ForAll long seed, EngineMemory memory)
      throws IOException {
    Path dir = Files.createTempDirectory("arrow-files-truncated");
    try {
      Path file = dir.resolve("cut.arrow");
      try (Table table = build(spec, memory)) {
        ArrowFiles.write(file, table, memory.arrow());
      }
      byte[] bytes = Files.readAllBytes(file);
      int length = new Random(seed).nextInt(bytes.length);
      Files.write(file, Arrays.copyOf(bytes, length));
      try (Table unexpected = ArrowFiles.map(file, memory)) {
        fail("mapped a file truncated to " + length + " of " + bytes.length + " bytes");
      } catch (CorruptArrowFileException e) {
        assertTrue(e.getMessage().contains("cut.arrow"), e.getMessage());
      }
    } finally {
      deleteAll(dir);
    }
  }

  static Table build(Spec spec, EngineMemory memory) {
    var encoding = new DictionaryEncoding(1, false, new ArrowType.Int(spec.codeBits(), true));
    Schema schema = new Schema(List.of(
        ColumnType.INT32.toField("i32", true, null),
        ColumnType.INT64.toField("i64", true, null),
        ColumnType.FLOAT64.toField("f64", true, null),
        ColumnType.DATE.toField("d", true, null),
        ColumnType.decimal(2).toField("price", true, null),
        ColumnType.STRING.toField("s", true, null),
        ColumnType.STRING.toField("flag", true, encoding)));
    VarCharVector values = new VarCharVector("flag-dictionary", memory.arrow());
    values.allocateNew(spec.dictionary().size());
    for (int i = 0; i < spec.dictionary().size(); i++) {
      values.setSafe(i, spec.dictionary().get(i).getBytes(StandardCharsets.UTF_8));
    }
    values.setValueCount(spec.dictionary().size());
    List<VectorSchemaRoot> roots = new ArrayList<>();
    for (List<Row> rows : spec.batches()) {
      VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow());
      roots.add(root);
      root.allocateNew();
      for (int r = 0; r < rows.size(); r++) {
        final int i = r;
        Row row = rows.get(i);
        set(root, "i32", i, row.i32(), v -> ((IntVector) root.getVector("i32")).setSafe(i, v));
        set(root, "i64", i, row.i64(), v -> ((BigIntVector) root.getVector("i64")).setSafe(i, v));
        set(root, "f64", i, row.f64(), v -> ((Float8Vector) root.getVector("f64")).setSafe(i, v));
        set(root, "d", i, row.date(), v -> ((DateDayVector) root.getVector("d")).setSafe(i, v));
        set(root, "price", i, row.price(), v -> ((BigIntVector) root.getVector("price")).setSafe(i, v));
        set(root, "s", i, row.s(),
            v -> ((VarCharVector) root.getVector("s")).setSafe(i, v.getBytes(StandardCharsets.UTF_8)));
        set(root, "flag", i, row.flag(), v -> {
          var codes = (BaseFixedWidthVector) root.getVector("flag");
          while (codes.getValueCapacity() <= i) {
            codes.reAlloc();
          }
          ((BaseIntVector) codes).setWithPossibleTruncate(i, v % spec.dictionary().size());
        });
      }
      root.setRowCount(rows.size());
    }
    return Table.own(schema, roots, Map.of(1L, new Dictionary(values, encoding)));
  }

  private static <T> void set(VectorSchemaRoot root, String column, int row, T value,
      java.util.function.Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
      return;
    }
    var vector = root.getVector(column);
    if (vector instanceof BaseFixedWidthVector fixed) {
      while (fixed.getValueCapacity() <= row) {
        fixed.reAlloc();
      }
      fixed.setNull(row);
    } else {
      ((VarCharVector) vector).setNull(row);
    }
  }

  static void assertMatches(Spec spec, Table mapped) {
    assertEquals(spec.batches().size(), mapped.batches().size());
    long rows = spec.batches().stream().mapToLong(List::size).sum();
    assertEquals(rows, mapped.rowCount());
    for (int b = 0; b < spec.batches().size(); b++) {
      List<Row> expected = spec.batches().get(b);
      Batch batch = mapped.batches().get(b);
      assertEquals(expected.size(), batch.rowCount());
      assertEquals(List.of(COLUMNS), batch.columns().stream().map(c -> c.name()).toList());
      for (int i = 0; i < expected.size(); i++) {
        Row row = expected.get(i);
        Object[] want = {row.i32(), row.i64(), row.f64(),
            row.date() == null ? null : LocalDate.ofEpochDay(row.date()),
            row.price() == null ? null : BigDecimal.valueOf(row.price(), 2), row.s(),
            row.flag() == null ? null : spec.dictionary().get(row.flag() % spec.dictionary().size())};
        for (int c = 0; c < COLUMNS.length; c++) {
          assertEquals(want[c], batch.column(c).getObject(i), "batch " + b + " row " + i + " column " + COLUMNS[c]);
        }
      }
    }
  }

  private static String diff(byte[] a, byte[] b) {
    List<Integer> at = new ArrayList<>();
    for (int i = 0; i < a.length; i++) {
      if (a[i] != b[i]) {
        at.add(i);
      }
    }
    return "offsets " + at + " of " + a.length;
  }

  static void deleteAll(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
