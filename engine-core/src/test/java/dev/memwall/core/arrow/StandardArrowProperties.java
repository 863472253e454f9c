package dev.memwall.core.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Random memwall tables read through {@link TableReader} into a host's {@link RootAllocator} come
 * back with exactly the values they were built from: decimals of every scale up to the int64
 * limits, every column kind, 1, 2 and 4 byte dictionary codes with null entries, random nulls,
 * random batch splits with empty batches; through Arrow's IPC stream format too; nothing leaks in
 * the engine's memory or the host's allocator.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class StandardArrowProperties {
  private static final String[] POOL = {"", "a", "MAIL", "grün", "é€😀", "1-URGENT", "promo tin", "x".repeat(40)};

  /** The kinds of memwall column a property builds. */
  private enum Kind { INT32, INT64, FLOAT64, DATE, DECIMAL, DECIMAL128, UTF8, CODES }

  /** One random column: its field, its dictionary (CODES only) and its values (null: a null row). */
  private record Spec(Kind kind, Field field, int scale, Dictionary dictionary, List<String> entries) {}

  @Provide
  Arbitrary<List<Long>> unscaled() {
    Arbitrary<Long> limits = Arbitraries.of(Long.MIN_VALUE + 1, Long.MAX_VALUE, 0L, 1L, -1L,
        999_999_999_999_999_999L, -999_999_999_999_999_999L);
    Arbitrary<Long> any = Arbitraries.longs().between(Long.MIN_VALUE + 1, Long.MAX_VALUE);
    Arbitrary<Long> small = Arbitraries.longs().between(-100_000, 100_000);
    return Arbitraries.frequencyOf(Tuple.of(2, limits), Tuple.of(3, any),
            Tuple.of(2, small))
        .injectNull(0.15).list().ofMaxSize(3000);
  }

  @Property(tries = 80)
  void decimalsWidenExactly(@ForAll("unscaled") List<Long> values, @ForAll @IntRange(max = 18) int scale,
      @ForAll @Size(max = 6) List<@IntRange(max = 1200) Integer> cuts, EngineMemory memory) throws IOException {
    Field field = ColumnType.decimal(scale).toField("d", true, null);
    Schema schema = new Schema(List.of(field));
    List<Integer> sizes = split(values.size(), cuts);
    List<VectorSchemaRoot> roots = new ArrayList<>();
    int at = 0;
    for (int size : sizes) {
      VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow());
      roots.add(root);
      BigIntVector vector = (BigIntVector) root.getVector(0);
      vector.allocateNew(Math.max(size, 1));
      for (int r = 0; r < size; r++, at++) {
        if (values.get(at) == null) {
          vector.setNull(r);
        } else {
          vector.set(r, values.get(at));
        }
      }
      root.setRowCount(size);
    }
    List<List<Object>> expected = new ArrayList<>();
    for (Long value : values) {
      expected.add(Arrays.asList(value == null ? null : BigDecimal.valueOf(value, scale)));
    }
    try (BufferAllocator host = new RootAllocator()) {
      try (TableReader reader = TableReader.of(Table.own(schema, roots, Map.of()), host)) {
        ArrowRows.Stream read = ArrowRows.read(reader);
        assertEquals(new ArrowType.Decimal(38, scale, 128), read.schema().getFields().getFirst().getType());
        assertEquals(sizes.stream().filter(s -> s > 0).toList(), read.batchRows());
        assertEquals(expected, read.rows());
      }
      assertEquals(0, host.getAllocatedMemory());
    }
  }

  @Property(tries = 60)
  void randomTablesReadBackExactly(@ForAll long seed, EngineMemory memory) throws IOException {
    Random random = new Random(seed);
    BufferAllocator engine = memory.arrow();
    int columns = 1 + random.nextInt(8);
    List<Spec> specs = new ArrayList<>();
    List<Dictionary> dictionaries = new ArrayList<>();
    List<VectorSchemaRoot> roots = new ArrayList<>();
    Table table = null;
    try {
      for (int c = 0; c < columns; c++) {
        Spec spec = spec(random, c, engine);
        specs.add(spec);
        if (spec.dictionary() != null) {
          dictionaries.add(spec.dictionary());
        }
      }
      Schema schema = new Schema(specs.stream().map(Spec::field).toList());
      int rows = random.nextInt(4) == 0 ? random.nextInt(3) : random.nextInt(5000);
      List<Integer> cuts = new ArrayList<>();
      for (int k = random.nextInt(6); k > 0; k--) {
        cuts.add(random.nextInt(rows + 1));
      }
      List<Integer> sizes = split(rows, cuts);
      double nullRate = random.nextInt(3) * 0.2;
      List<List<Object>> expected = new ArrayList<>();
      for (int size : sizes) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, engine);
        roots.add(root);
        root.allocateNew();
        for (int r = 0; r < size; r++) {
          List<Object> row = new ArrayList<>();
          for (int c = 0; c < columns; c++) {
            Spec spec = specs.get(c);
            boolean isNull = spec.field().isNullable() && random.nextDouble() < nullRate;
            row.add(write(spec, root.getVector(c), r, isNull, random));
          }
          expected.add(row);
        }
        root.setRowCount(size);
      }
      table = ArrowRows.own(schema, roots, dictionaries);
      roots.clear();
      dictionaries.clear();
      assertEquals(expected, ArrowRows.rows(table), "memwall reads the table as built");
      try (BufferAllocator host = new RootAllocator()) {
        List<Integer> batches = sizes.stream().filter(s -> s > 0).toList();
        try (TableReader reader = TableReader.borrowing(table, host)) {
          assertEquals(new ArrowRows.Stream(StandardArrow.schema(schema), batches, expected), ArrowRows.read(reader));
        }
        try (TableReader reader = TableReader.borrowing(table, host)) {
          assertEquals(new ArrowRows.Stream(StandardArrow.schema(schema), batches, expected),
              ArrowRows.readStream(ArrowRows.writeStream(reader), host), "through the IPC stream format");
        }
        assertEquals(0, host.getAllocatedMemory());
      }
    } finally {
      if (table != null) {
        table.close();
      }
      roots.forEach(VectorSchemaRoot::close);
      dictionaries.forEach(d -> d.getVector().close());
    }
  }

  /** Batch sizes summing to {@code rows}, cut at {@code cuts} (clamped; repeated cuts give empty batches). */
  private static List<Integer> split(int rows, List<Integer> cuts) {
    List<Integer> points = new ArrayList<>();
    for (int cut : cuts) {
      points.add(Math.min(cut, rows));
    }
    points.sort(null);
    List<Integer> sizes = new ArrayList<>();
    int from = 0;
    for (int point : points) {
      sizes.add(point - from);
      from = point;
    }
    sizes.add(rows - from);
    return sizes;
  }

  private static Spec spec(Random random, int c, BufferAllocator allocator) {
    Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
    boolean nullable = random.nextInt(4) != 0;
    String name = "c" + c;
    return switch (kind) {
      case INT32 -> new Spec(kind, ColumnType.INT32.toField(name, nullable, null), 0, null, null);
      case INT64 -> new Spec(kind, ColumnType.INT64.toField(name, nullable, null), 0, null, null);
      case FLOAT64 -> new Spec(kind, ColumnType.FLOAT64.toField(name, nullable, null), 0, null, null);
      case DATE -> new Spec(kind, ColumnType.DATE.toField(name, nullable, null), 0, null, null);
      case UTF8 -> new Spec(kind, ColumnType.STRING.toField(name, nullable, null), 0, null, null);
      case DECIMAL -> {
        int scale = random.nextInt(19);
        yield new Spec(kind, ColumnType.decimal(scale).toField(name, nullable, null), scale, null, null);
      }
      case DECIMAL128 -> {
        int scale = random.nextInt(19);
        yield new Spec(kind, new Field(name, new FieldType(nullable, new ArrowType.Decimal(18, scale, 128), null), null),
            scale, null, null);
      }
      case CODES -> {
        int bits = 8 << random.nextInt(3);
        int size = 1 + random.nextInt(bits == 8 ? 100 : 400);
        String[] entries = new String[size];
        for (int e = 0; e < size; e++) {
          entries[e] = nullable && random.nextInt(10) == 0 ? null : POOL[random.nextInt(POOL.length)] + e;
        }
        Dictionary dictionary = Vectors.dictionary(allocator, ArrowRows.encoding(c, bits), entries);
        yield new Spec(kind, ColumnType.STRING.toField(name, nullable, dictionary.getEncoding()), 0, dictionary,
            Arrays.asList(entries));
      }
    };
  }

  /** Writes a random value (or null) at {@code row} of {@code vector} and returns it as the reader gives it back. */
  private static Object write(Spec spec, FieldVector vector, int row, boolean isNull, Random random) {
    if (isNull) {
      if (vector instanceof VarCharVector strings) {
        strings.setNull(row);
      } else {
        ((BaseFixedWidthVector) vector).setNull(row);
      }
      return null;
    }
    return switch (spec.kind()) {
      case INT32 -> {
        int value = random.nextInt();
        ((IntVector) vector).setSafe(row, value);
        yield value;
      }
      case INT64 -> {
        long value = random.nextLong();
        ((BigIntVector) vector).setSafe(row, value);
        yield value;
      }
      case FLOAT64 -> {
        double value = random.nextInt(20) == 0 ? Double.NaN : random.nextGaussian() * 1e6;
        ((Float8Vector) vector).setSafe(row, value);
        yield value;
      }
      case DATE -> {
        int days = random.nextInt(-200_000, 200_000);
        ((DateDayVector) vector).setSafe(row, days);
        yield LocalDate.ofEpochDay(days);
      }
      case DECIMAL -> {
        long unscaled = switch (random.nextInt(6)) {
          case 0 -> Long.MAX_VALUE;
          case 1 -> Long.MIN_VALUE + 1;
          case 2 -> random.nextLong(-1000, 1000);
          default -> random.nextLong();
        };
        ((BigIntVector) vector).setSafe(row, unscaled);
        yield BigDecimal.valueOf(unscaled, spec.scale());
      }
      case DECIMAL128 -> {
        long unscaled = random.nextLong(-999_999_999_999_999_999L, 1_000_000_000_000_000_000L);
        ((DecimalVector) vector).setSafe(row, unscaled);
        yield BigDecimal.valueOf(unscaled, spec.scale());
      }
      case UTF8 -> {
        String value = POOL[random.nextInt(POOL.length)] + (random.nextBoolean() ? "" : row);
        ((VarCharVector) vector).setSafe(row, value.getBytes(StandardCharsets.UTF_8));
        yield value;
      }
      case CODES -> {
        int code = random.nextInt(spec.entries().size());
        while (vector.getValueCapacity() <= row) {
          vector.reAlloc();
        }
        ((BaseIntVector) vector).setWithPossibleTruncate(row, code);
        yield spec.entries().get(code);
      }
    };
  }
}
