package dev.memwall.core.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link ColumnType}'s mapping to and from Arrow, and {@link Column#of}'s rejections. */
@ExtendWith(LeakCheck.class)
class ColumnTypeTest {
  @Test
  void everyTypeRoundTripsThroughAnArrowField(EngineMemory unused) {
    for (ColumnType type : List.of(ColumnType.INT32, ColumnType.INT64, ColumnType.FLOAT64, ColumnType.DATE,
        ColumnType.STRING, ColumnType.BOOLEAN, ColumnType.decimal(0), ColumnType.decimal(2), ColumnType.decimal(18),
        ColumnType.timestamp(TimeUnit.SECOND, null), ColumnType.timestamp(TimeUnit.NANOSECOND, "UTC"),
        ColumnType.timestamp(TimeUnit.MILLISECOND, "+05:30"), ColumnType.timestamp(TimeUnit.MICROSECOND, "Europe/Paris"))) {
      assertEquals(type, ColumnType.of(type.toField("c", true, null)), type.toString());
    }
    var encoding = new DictionaryEncoding(3, false, new ArrowType.Int(16, true));
    assertEquals(ColumnType.STRING, ColumnType.of(ColumnType.STRING.toField("c", false, encoding)));
  }

  @Test
  void otherArrowTypesAreReadAsTheKindTheyWidenTo(EngineMemory unused) {
    record Read(ArrowType arrow, ColumnType as) {}
    for (Read read : List.of(new Read(new ArrowType.Int(8, true), ColumnType.INT32),
        new Read(new ArrowType.Int(16, true), ColumnType.INT32),
        new Read(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), ColumnType.FLOAT64),
        new Read(new ArrowType.Date(DateUnit.MILLISECOND), ColumnType.DATE),
        new Read(ArrowType.LargeUtf8.INSTANCE, ColumnType.STRING),
        new Read(new ArrowType.Decimal(38, 2, 128), ColumnType.decimal(2)),
        new Read(new ArrowType.Decimal(19, 18, 128), ColumnType.decimal(18)))) {
      assertEquals(read.as(), ColumnType.of(new Field("c", FieldType.nullable(read.arrow()), null)), read.arrow().toString());
    }
  }

  @Test
  void unsupportedArrowTypesAreRejectedNamingTheColumnAndType(EngineMemory unused) {
    List<ArrowType> unsupported = List.of(new ArrowType.Int(8, false), new ArrowType.Int(16, false),
        new ArrowType.Int(32, false), new ArrowType.Int(64, false),
        new ArrowType.FloatingPoint(FloatingPointPrecision.HALF), ArrowType.Binary.INSTANCE,
        new ArrowType.Decimal(38, 20, 128), new ArrowType.Decimal(10, 2, 256), new ArrowType.Decimal(10, -2, 128),
        new ArrowType.Time(TimeUnit.MICROSECOND, 64), new ArrowType.Timestamp(TimeUnit.MICROSECOND, "Mars/Olympus"),
        ArrowType.Utf8View.INSTANCE);
    for (ArrowType type : unsupported) {
      Field field = new Field("l_odd_column", FieldType.nullable(type), null);
      var e = assertThrows(IllegalArgumentException.class, () -> ColumnType.of(field), type.toString());
      assertTrue(e.getMessage().contains("'l_odd_column'"), e.getMessage());
      assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }
    var e = assertThrows(IllegalArgumentException.class,
        () -> ColumnType.of(new Field("w", FieldType.nullable(new ArrowType.Decimal(38, 20, 128)), null)));
    assertTrue(e.getMessage().contains("decimal(38,20)"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> ColumnType.of(new Field("u", FieldType.nullable(new ArrowType.Int(32, false)), null)));
    assertTrue(e.getMessage().contains("unsigned"), e.getMessage());
  }

  @Test
  void badScalesAreRejected(EngineMemory unused) {
    assertThrows(IllegalArgumentException.class, () -> ColumnType.decimal(-1));
    assertThrows(IllegalArgumentException.class, () -> ColumnType.decimal(19));
    assertThrows(IllegalArgumentException.class, () -> new ColumnType(ColumnType.Kind.INT64, 2));
    assertThrows(IllegalArgumentException.class, () -> new ColumnType(ColumnType.Kind.TIMESTAMP, 4));
    assertThrows(IllegalArgumentException.class, () -> new ColumnType(ColumnType.Kind.TIMESTAMP, 12));
    assertThrows(IllegalArgumentException.class, () -> new ColumnType(ColumnType.Kind.DATE, 0, "UTC"));
    var encoding = new DictionaryEncoding(1, false, new ArrowType.Int(8, true));
    assertThrows(IllegalArgumentException.class, () -> ColumnType.INT32.toField("c", true, encoding));
  }

  @Test
  void columnOfAnUnsupportedVectorNamesIt(EngineMemory memory) {
    try (UInt4Vector ids = new UInt4Vector("l_ids", memory.arrow())) {
      var e = assertThrows(IllegalArgumentException.class, () -> Column.of(ids, null));
      assertTrue(e.getMessage().contains("'l_ids'"), e.getMessage());
    }
  }

  @Test
  void dictionaryColumnWithoutItsDictionaryNamesIt(EngineMemory memory) {
    var encoding = new DictionaryEncoding(9, false, new ArrowType.Int(8, true));
    try (var codes = ColumnType.STRING.toField("l_shipmode", true, encoding).createVector(memory.arrow())) {
      var e = assertThrows(IllegalArgumentException.class, () -> Column.of(codes, null));
      assertTrue(e.getMessage().contains("'l_shipmode'"), e.getMessage());
      var empty = new DictionaryProvider.MapDictionaryProvider();
      e = assertThrows(IllegalArgumentException.class, () -> Column.of(codes, empty));
      assertTrue(e.getMessage().contains("'l_shipmode'"), e.getMessage());
    }
  }

  @Test
  void dictionaryWith64BitCodesIsRejected(EngineMemory memory) {
    var encoding = new DictionaryEncoding(4, false, new ArrowType.Int(64, true));
    try (VarCharVector values = new VarCharVector("dict", memory.arrow());
        var codes = ColumnType.STRING.toField("wide", true, encoding).createVector(memory.arrow())) {
      var provider = new DictionaryProvider.MapDictionaryProvider(new Dictionary(values, encoding));
      var e = assertThrows(IllegalArgumentException.class, () -> Column.of(codes, provider));
      assertTrue(e.getMessage().contains("'wide'"), e.getMessage());
    }
  }

  /**
   * Unsigned dictionary codes are legal Arrow; a code of 200 in an 8-bit unsigned index must not
   * be read as -56 (silently wrong). memwall either reads it right or refuses the column.
   */
  @Test
  void unsignedDictionaryCodesAreNotMisread(EngineMemory memory) {
    var encoding = new DictionaryEncoding(5, false, new ArrowType.Int(8, false));
    try (VarCharVector values = new VarCharVector("dict", memory.arrow());
        UInt1Vector codes = (UInt1Vector) new Field("u8", new FieldType(true, encoding.getIndexType(), encoding), null)
            .createVector(memory.arrow())) {
      values.allocateNew(201);
      for (int i = 0; i <= 200; i++) {
        values.setSafe(i, ("v" + i).getBytes(StandardCharsets.UTF_8));
      }
      values.setValueCount(201);
      codes.allocateNew(1);
      codes.setWithPossibleTruncate(0, 200);
      codes.setValueCount(1);
      var provider = new DictionaryProvider.MapDictionaryProvider(new Dictionary(values, encoding));
      Column column;
      try {
        column = Column.of(codes, provider);
      } catch (IllegalArgumentException refused) {
        assertTrue(refused.getMessage().contains("'u8'"), refused.getMessage());
        return;
      }
      assertEquals(200L, column.getLong(0));
      assertEquals("v200", column.getObject(0));
    }
  }
}
