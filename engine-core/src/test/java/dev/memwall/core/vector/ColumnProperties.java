package dev.memwall.core.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;

/** Random values, type limits and nulls built into Arrow vectors read back through {@link Column}. */
@AddLifecycleHook(PropertyLeakCheck.class)
class ColumnProperties {
  private static final int MAX_ROWS = 300;

  @Provide
  Arbitrary<List<Integer>> ints() {
    return Arbitraries.oneOf(Arbitraries.of(Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1),
        Arbitraries.integers()).injectNull(0.2).list().ofMaxSize(MAX_ROWS);
  }

  @Provide
  Arbitrary<List<Long>> longs() {
    return Arbitraries.oneOf(Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L),
        Arbitraries.longs()).injectNull(0.2).list().ofMaxSize(MAX_ROWS);
  }

  @Provide
  Arbitrary<List<Double>> doubles() {
    return Arbitraries.oneOf(
        Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0,
            Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE),
        Arbitraries.doubles()).injectNull(0.2).list().ofMaxSize(MAX_ROWS);
  }

  /** Valid Unicode (no lone surrogates, which UTF-8 cannot carry), including the empty string. */
  static Arbitrary<String> strings() {
    Arbitrary<Integer> codePoint = Arbitraries.oneOf(
        Arbitraries.integers().between(0, 0x7F),
        Arbitraries.integers().between(0x80, 0xD7FF),
        Arbitraries.integers().between(0xE000, 0x10FFFF));
    Arbitrary<String> random = codePoint.list().ofMaxSize(12).map(cps -> {
      StringBuilder s = new StringBuilder();
      cps.forEach(s::appendCodePoint);
      return s.toString();
    });
    return Arbitraries.oneOf(Arbitraries.of("", "é", "€uro", "😀", "a\u0000b", "日本語"), random);
  }

  @Provide
  Arbitrary<List<String>> nullableStrings() {
    return strings().injectNull(0.2).list().ofMaxSize(MAX_ROWS);
  }

  @Provide
  Arbitrary<String> dictionaryEntry() {
    return strings();
  }

  @Provide
  Arbitrary<Integer> codeBits() {
    return Arbitraries.of(8, 16, 32);
  }

  @Property(tries = 150)
  void int32(@ForAll("ints") List<Integer> values, EngineMemory memory) {
    try (IntVector vector = new IntVector("i32", memory.arrow())) {
      vector.allocateNew(values.size());
      for (int i = 0; i < values.size(); i++) {
        if (values.get(i) == null) {
          vector.setNull(i);
        } else {
          vector.set(i, values.get(i));
        }
      }
      vector.setValueCount(values.size());
      Int32Column column = assertInstanceOf(Int32Column.class, Column.of(vector, null));
      assertEquals(ColumnType.INT32, column.type());
      checkNulls(column, values);
      for (int i = 0; i < values.size(); i++) {
        Integer expected = values.get(i);
        if (expected != null) {
          assertEquals(expected, column.get(i));
          assertEquals((long) expected, column.getLong(i));
          assertEquals((double) expected, column.getDouble(i));
        }
        assertEquals(expected, column.getObject(i));
      }
    }
  }

  @Property(tries = 150)
  void date(@ForAll("ints") List<Integer> values, EngineMemory memory) {
    try (DateDayVector vector = new DateDayVector("d", memory.arrow())) {
      vector.allocateNew(values.size());
      for (int i = 0; i < values.size(); i++) {
        if (values.get(i) == null) {
          vector.setNull(i);
        } else {
          vector.set(i, values.get(i));
        }
      }
      vector.setValueCount(values.size());
      DateColumn column = assertInstanceOf(DateColumn.class, Column.of(vector, null));
      assertEquals(ColumnType.DATE, column.type());
      checkNulls(column, values);
      for (int i = 0; i < values.size(); i++) {
        Integer expected = values.get(i);
        if (expected != null) {
          assertEquals(expected, column.get(i));
          assertEquals((long) expected, column.getLong(i));
        }
        assertEquals(expected == null ? null : LocalDate.ofEpochDay(expected), column.getObject(i));
      }
    }
  }

  @Property(tries = 150)
  void int64(@ForAll("longs") List<Long> values, EngineMemory memory) {
    try (BigIntVector vector = new BigIntVector("i64", memory.arrow())) {
      fill(vector, values);
      Int64Column column = assertInstanceOf(Int64Column.class, Column.of(vector, null));
      assertEquals(ColumnType.INT64, column.type());
      checkNulls(column, values);
      for (int i = 0; i < values.size(); i++) {
        Long expected = values.get(i);
        if (expected != null) {
          assertEquals(expected, column.get(i));
          assertEquals(expected, column.getLong(i));
          assertEquals((double) expected, column.getDouble(i));
          assertEquals(expected, column.data().getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i));
        }
        assertEquals(expected, column.getObject(i));
      }
    }
  }

  @Property(tries = 150)
  void decimal(@ForAll("longs") List<Long> values, @ForAll @IntRange(min = 0, max = 18) int scale,
      EngineMemory memory) {
    ColumnType type = ColumnType.decimal(scale);
    try (BigIntVector vector = (BigIntVector) type.toField("price", true, null).createVector(memory.arrow())) {
      fill(vector, values);
      DecimalColumn column = assertInstanceOf(DecimalColumn.class, Column.of(vector, null));
      assertEquals(type, column.type());
      assertEquals(scale, column.scale());
      checkNulls(column, values);
      for (int i = 0; i < values.size(); i++) {
        Long expected = values.get(i);
        if (expected != null) {
          BigDecimal exact = BigDecimal.valueOf(expected, scale);
          assertEquals(expected, column.get(i));
          assertEquals(exact, column.getDecimal(i));
          assertEquals(exact.doubleValue(), column.getDouble(i), Math.abs(exact.doubleValue()) * 1e-15);
        }
        assertEquals(expected == null ? null : BigDecimal.valueOf(expected, scale), column.getObject(i));
      }
    }
  }

  @Property(tries = 150)
  void float64(@ForAll("doubles") List<Double> values, EngineMemory memory) {
    try (Float8Vector vector = new Float8Vector("f64", memory.arrow())) {
      vector.allocateNew(values.size());
      for (int i = 0; i < values.size(); i++) {
        if (values.get(i) == null) {
          vector.setNull(i);
        } else {
          vector.set(i, values.get(i));
        }
      }
      vector.setValueCount(values.size());
      Float64Column column = assertInstanceOf(Float64Column.class, Column.of(vector, null));
      assertEquals(ColumnType.FLOAT64, column.type());
      checkNulls(column, values);
      for (int i = 0; i < values.size(); i++) {
        Double expected = values.get(i);
        if (expected != null) {
          assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(column.get(i)));
          assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(column.getDouble(i)));
        }
        assertEquals(expected, column.getObject(i));
      }
    }
  }

  @Property(tries = 150)
  void string(@ForAll("nullableStrings") List<String> values, EngineMemory memory) {
    try (VarCharVector vector = StringVectors.of("s", values, memory.arrow())) {
      VarCharColumn column = assertInstanceOf(VarCharColumn.class, Column.of(vector, null));
      assertEquals(ColumnType.STRING, column.type());
      checkNulls(column, values);
      for (int i = 0; i < values.size(); i++) {
        String expected = values.get(i);
        assertEquals(expected, column.getString(i));
        assertEquals(expected, column.getObject(i));
        if (expected != null) {
          byte[] utf8 = expected.getBytes(StandardCharsets.UTF_8);
          assertEquals(utf8.length, column.byteLength(i));
          assertEquals(-1, column.slice(i).mismatch(MemorySegment.ofArray(utf8)));
        }
      }
    }
  }

  @Property(tries = 150)
  void dictionaryString(@ForAll("codeBits") int bits,
      @ForAll @Size(min = 1, max = 120) List<@net.jqwik.api.From("dictionaryEntry") String> entries,
      @ForAll @Size(max = MAX_ROWS) List<@IntRange(min = -1, max = 1000) Integer> picks,
      EngineMemory memory) {
    List<String> distinct = new ArrayList<>(new LinkedHashSet<>(entries));
    var encoding = new DictionaryEncoding(7, false, new ArrowType.Int(bits, true));
    VarCharVector values = new VarCharVector("s-dictionary", memory.arrow());
    values.allocateNew(distinct.size());
    for (int i = 0; i < distinct.size(); i++) {
      values.setSafe(i, distinct.get(i).getBytes(StandardCharsets.UTF_8));
    }
    values.setValueCount(distinct.size());
    try (values;
        FieldVector indices = ColumnType.STRING.toField("s", true, encoding).createVector(memory.arrow())) {
      // pick -1 is a null row, anything else selects an entry
      List<Integer> codes = new ArrayList<>();
      picks.forEach(p -> codes.add(p < 0 ? null : p % distinct.size()));
      indices.setInitialCapacity(codes.size());
      indices.allocateNew();
      for (int i = 0; i < codes.size(); i++) {
        if (codes.get(i) == null) {
          ((BaseFixedWidthVector) indices).setNull(i);
        } else {
          ((BaseIntVector) indices).setWithPossibleTruncate(i, codes.get(i));
        }
      }
      indices.setValueCount(codes.size());
      DictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(new Dictionary(values, encoding));
      DictionaryColumn column = assertInstanceOf(DictionaryColumn.class, Column.of(indices, provider));
      assertEquals(ColumnType.STRING, column.type());
      assertEquals(bits / 8, column.codeBytes());
      assertEquals(distinct.size(), column.dictionary().length());
      checkNulls(column, codes);
      for (int i = 0; i < codes.size(); i++) {
        Integer code = codes.get(i);
        if (code != null) {
          assertEquals((int) code, column.code(i));
          assertEquals((long) code, column.getLong(i));
        }
        assertEquals(code == null ? null : distinct.get(code), column.getObject(i));
      }
    }
  }

  private static void fill(BigIntVector vector, List<Long> values) {
    vector.allocateNew(values.size());
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) == null) {
        vector.setNull(i);
      } else {
        vector.set(i, values.get(i));
      }
    }
    vector.setValueCount(values.size());
  }

  private static void checkNulls(Column column, List<?> values) {
    assertEquals(values.size(), column.length());
    assertEquals(values.stream().anyMatch(Objects::isNull), column.hasNulls());
    for (int i = 0; i < values.size(); i++) {
      assertEquals(values.get(i) == null, column.isNull(i), "row " + i);
    }
    if (!column.hasNulls()) {
      assertNull(column.validity());
    }
  }
}
