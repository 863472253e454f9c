package dev.memwall.core.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.vector.ColumnType;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** The standard schema of memwall schemas: types mapped, names and nullability kept, metadata gone. */
class StandardArrowSchemaTest {

  @Test
  void mapsEveryLogicalType() {
    Schema memwall = new Schema(List.of(
        ColumnType.INT32.toField("i", true, null),
        ColumnType.INT64.toField("l", false, null),
        ColumnType.FLOAT64.toField("f", true, null),
        ColumnType.DATE.toField("d", true, null),
        ColumnType.decimal(2).toField("price", true, null),
        ColumnType.decimal(0).toField("whole", false, null),
        ColumnType.decimal(18).toField("tiny", true, null),
        ColumnType.STRING.toField("s", true, null),
        ColumnType.STRING.toField("coded8", true, ArrowRows.encoding(0, 8)),
        ColumnType.STRING.toField("coded16", false, ArrowRows.encoding(1, 16)),
        ColumnType.STRING.toField("coded32", true, ArrowRows.encoding(2, 32)),
        new Field("wide", FieldType.nullable(new ArrowType.Decimal(15, 2, 128)), null)),
        Map.of("memwall.something", "private"));
    Schema expected = new Schema(List.of(
        field("i", true, new ArrowType.Int(32, true)),
        field("l", false, new ArrowType.Int(64, true)),
        field("f", true, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
        field("d", true, new ArrowType.Date(DateUnit.DAY)),
        field("price", true, new ArrowType.Decimal(38, 2, 128)),
        field("whole", false, new ArrowType.Decimal(38, 0, 128)),
        field("tiny", true, new ArrowType.Decimal(38, 18, 128)),
        field("s", true, ArrowType.Utf8.INSTANCE),
        field("coded8", true, ArrowType.Utf8.INSTANCE),
        field("coded16", false, ArrowType.Utf8.INSTANCE),
        field("coded32", true, ArrowType.Utf8.INSTANCE),
        field("wide", true, new ArrowType.Decimal(38, 2, 128))));
    Schema standard = StandardArrow.schema(memwall);
    assertEquals(expected, standard);
    assertTrue(standard.getCustomMetadata().isEmpty());
    for (Field field : standard.getFields()) {
      assertNull(field.getDictionary(), field.getName());
      assertTrue(field.getMetadata().isEmpty(), field.getName());
      assertTrue(field.getChildren().isEmpty(), field.getName());
    }
  }

  @Test
  void dependsOnlyOnTheColumnTypes() {
    Schema encoded = new Schema(List.of(ColumnType.STRING.toField("s", true, ArrowRows.encoding(7, 8)),
        ColumnType.decimal(3).toField("x", true, null)));
    Schema plain = new Schema(List.of(ColumnType.STRING.toField("s", true, null),
        new Field("x", FieldType.nullable(new ArrowType.Decimal(9, 3, 128)), null)));
    assertEquals(StandardArrow.schema(plain), StandardArrow.schema(encoded));
  }

  @Test
  void refusesTypesMemwallDoesNotRead() {
    Schema times = new Schema(List.of(new Field("t64", FieldType.nullable(
        new ArrowType.Time(org.apache.arrow.vector.types.TimeUnit.MICROSECOND, 64)), null)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StandardArrow.schema(times));
    assertTrue(e.getMessage().contains("t64"), e.getMessage());
    Schema fineDecimal = new Schema(List.of(new Field("big", FieldType.nullable(new ArrowType.Decimal(38, 20, 128)), null)));
    assertThrows(IllegalArgumentException.class, () -> StandardArrow.schema(fineDecimal));
    assertThrows(NullPointerException.class, () -> StandardArrow.schema(null));
  }

  @Test
  void typesReadThroughViewsMapToTheirKindsStandardTypes() {
    Schema views = new Schema(List.of(field("f4", true, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
        field("i8", true, new ArrowType.Int(8, true)), field("d64", false, new ArrowType.Date(
            org.apache.arrow.vector.types.DateUnit.MILLISECOND)), field("big", true, new ArrowType.Decimal(30, 2, 128)),
        field("ls", true, ArrowType.LargeUtf8.INSTANCE), field("b", true, ArrowType.Bool.INSTANCE),
        field("ts", true, new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.NANOSECOND, "Asia/Tokyo"))));
    assertEquals(new Schema(List.of(field("f4", true, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
        field("i8", true, new ArrowType.Int(32, true)), field("d64", false, new ArrowType.Date(
            org.apache.arrow.vector.types.DateUnit.DAY)), field("big", true, new ArrowType.Decimal(38, 2, 128)),
        field("ls", true, ArrowType.Utf8.INSTANCE), field("b", true, ArrowType.Bool.INSTANCE),
        field("ts", true, new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.NANOSECOND, "Asia/Tokyo")))),
        StandardArrow.schema(views));
  }

  private static Field field(String name, boolean nullable, ArrowType type) {
    return new Field(name, new FieldType(nullable, type, null), null);
  }
}
