package dev.memwall.core.arrow;

import dev.memwall.core.vector.ColumnType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The standard Arrow schema a host program sees for a memwall schema: what
 * {@link StandardBatchCopier} writes and {@link TableReader} declares before its first batch.
 *
 * <p>The mapping, per column, from its memwall {@linkplain ColumnType logical type}:
 *
 * <ul>
 *   <li>{@code INT32}: Int(32, signed); {@code INT64}: Int(64, signed); {@code FLOAT64}:
 *       FloatingPoint(DOUBLE); {@code DATE}: Date(DAY); {@code BOOLEAN}: Bool; {@code TIMESTAMP}:
 *       Timestamp of its unit and zone. Unchanged for columns of those Arrow types; a column read
 *       through a view is widened to its kind's type (Int(8) and Int(16) to Int(32), float32 to
 *       double, Date(MILLISECOND) to Date(DAY), LargeUtf8 to Utf8).
 *   <li>{@code DECIMAL} of scale {@code s} (memwall's scaled Int(64) with the
 *       {@value ColumnType#SCALE_METADATA_KEY} metadata, or a caller's Decimal128 of any
 *       precision, copied with all 128 bits): {@code Decimal(38, s, 128)}. memwall
 *       carries a decimal's scale but no precision (no field metadata or column type records one),
 *       and an unscaled int64 has up to 19 digits, so no precision below 19 holds every value; the
 *       precision is fixed at {@value #DECIMAL_PRECISION}, Decimal128's largest, so the schema
 *       never depends on the data or on where a column came from (a scaled int64 and a Decimal128
 *       column of the same scale map alike).
 *   <li>{@code STRING}, Utf8 or LargeUtf8, dictionary-encoded (integer codes plus a dictionary) or
 *       not: plain {@code Utf8}, with no dictionary encoding.
 * </ul>
 *
 * <p>Names and nullability are kept, in order; all field metadata and the schema's custom metadata
 * are dropped (memwall's is private, and keeping a caller's would make the schema depend on more
 * than the column types). The result depends only on the column names, types and nullability, never
 * on which operator produced a table or how it chose to encode strings.
 *
 * <p>Ownership: nothing to own; results are new immutable Arrow POJOs. Thread safety: stateless,
 * safe from any thread. Bad input: a null argument throws {@link NullPointerException}; a column
 * of an Arrow type memwall does not read throws {@link IllegalArgumentException} naming the column
 * (from {@link ColumnType#of}).
 */
public final class StandardArrow {
  /** Precision of every standard decimal column: Decimal128's largest (see the class comment). */
  public static final int DECIMAL_PRECISION = 38;

  /** Bit width of every standard decimal column. */
  public static final int DECIMAL_BIT_WIDTH = 128;

  private StandardArrow() {}

  /**
   * The standard schema of {@code memwallSchema}: one {@link #field} per field, in order, without
   * custom metadata.
   *
   * @throws IllegalArgumentException naming a column whose Arrow type memwall does not read
   */
  public static Schema schema(Schema memwallSchema) {
    Objects.requireNonNull(memwallSchema, "memwallSchema");
    List<Field> fields = new ArrayList<>(memwallSchema.getFields().size());
    for (Field field : memwallSchema.getFields()) {
      fields.add(field(field));
    }
    return new Schema(fields);
  }

  /**
   * The standard field of a memwall field: the same name and nullability, the {@link #type} of its
   * logical type, no dictionary encoding, metadata or children.
   *
   * @throws IllegalArgumentException naming the column when its Arrow type memwall does not read
   */
  public static Field field(Field memwallField) {
    Objects.requireNonNull(memwallField, "memwallField");
    ArrowType type = type(ColumnType.of(memwallField));
    return new Field(memwallField.getName(), new FieldType(memwallField.isNullable(), type, null, null), null);
  }

  /** The standard Arrow type of a memwall logical type. */
  public static ArrowType type(ColumnType type) {
    return switch (type.kind()) {
      case INT32 -> new ArrowType.Int(32, true);
      case INT64 -> new ArrowType.Int(64, true);
      case FLOAT64 -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case DECIMAL -> new ArrowType.Decimal(DECIMAL_PRECISION, type.scale(), DECIMAL_BIT_WIDTH);
      case STRING -> ArrowType.Utf8.INSTANCE;
      case BOOLEAN -> ArrowType.Bool.INSTANCE;
      case TIMESTAMP -> new ArrowType.Timestamp(type.unit(), type.zone());
    };
  }
}
