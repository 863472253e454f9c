package dev.memwall.core.vector;

import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The logical type of a memwall column and how it maps onto Arrow.
 *
 * <ul>
 *   <li>{@code INT32}: Arrow Int(32, signed).
 *   <li>{@code INT64}: Arrow Int(64, signed).
 *   <li>{@code FLOAT64}: Arrow FloatingPoint(DOUBLE).
 *   <li>{@code DATE}: Arrow Date(DAY), days since 1970-01-01.
 *   <li>{@code DECIMAL}: a scaled int64 (value = unscaled / 10^scale) stored as Arrow Int(64) with
 *       the field metadata {@value #SCALE_METADATA_KEY}; 8 bytes a value instead of Arrow
 *       Decimal128's 16, which halves the bandwidth a scan needs. Arrow Decimal128 columns of
 *       precision up to 18 (a caller's own batches) are read as DECIMAL too.
 *   <li>{@code STRING}: Arrow Utf8, or Utf8 dictionary-encoded with 1, 2 or 4 byte codes for
 *       low-cardinality columns.
 * </ul>
 *
 * @param kind the logical kind
 * @param scale digits after the decimal point for {@code DECIMAL}, 0 otherwise
 */
public record ColumnType(Kind kind, int scale) {
  /** The largest precision of an Arrow Decimal128 column memwall reads: every such value fits an int64. */
  public static final int MAX_DECIMAL128_PRECISION = 18;

  /** Field metadata key carrying a DECIMAL column's scale. */
  public static final String SCALE_METADATA_KEY = "memwall.decimal.scale";

  public static final ColumnType INT32 = new ColumnType(Kind.INT32, 0);
  public static final ColumnType INT64 = new ColumnType(Kind.INT64, 0);
  public static final ColumnType FLOAT64 = new ColumnType(Kind.FLOAT64, 0);
  public static final ColumnType DATE = new ColumnType(Kind.DATE, 0);
  public static final ColumnType STRING = new ColumnType(Kind.STRING, 0);

  /** The logical kinds. */
  public enum Kind { INT32, INT64, FLOAT64, DATE, DECIMAL, STRING }

  public ColumnType {
    if (scale < 0 || scale > 18 || (kind != Kind.DECIMAL && scale != 0)) {
      throw new IllegalArgumentException("invalid scale " + scale + " for " + kind);
    }
  }

  /** A decimal with {@code scale} digits after the point (0..18). */
  public static ColumnType decimal(int scale) {
    return new ColumnType(Kind.DECIMAL, scale);
  }

  /** Whether values are read as {@code long} (INT32, INT64, DATE, DECIMAL). */
  public boolean isIntegral() {
    return kind != Kind.FLOAT64 && kind != Kind.STRING;
  }

  /** An Arrow field of this type; {@code dictionary} non-null only for dictionary-encoded STRING. */
  public Field toField(String name, boolean nullable, DictionaryEncoding dictionary) {
    if (dictionary != null && kind != Kind.STRING) {
      throw new IllegalArgumentException("only STRING columns can be dictionary-encoded, not " + this);
    }
    ArrowType arrowType = switch (kind) {
      case INT32 -> new ArrowType.Int(32, true);
      case INT64, DECIMAL -> new ArrowType.Int(64, true);
      case FLOAT64 -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case STRING -> dictionary != null ? dictionary.getIndexType() : ArrowType.Utf8.INSTANCE;
    };
    Map<String, String> metadata =
        kind == Kind.DECIMAL ? Map.of(SCALE_METADATA_KEY, Integer.toString(scale)) : null;
    return new Field(name, new FieldType(nullable, arrowType, dictionary, metadata), null);
  }

  /**
   * The logical type of an Arrow field as memwall reads it.
   *
   * @throws IllegalArgumentException naming the field when its Arrow type has no memwall equivalent
   */
  public static ColumnType of(Field field) {
    if (field.getDictionary() != null) {
      return STRING;
    }
    ArrowType type = field.getType();
    return switch (type) {
      case ArrowType.Int i when i.getBitWidth() == 32 && i.getIsSigned() -> INT32;
      case ArrowType.Int i when i.getBitWidth() == 64 && i.getIsSigned() -> {
        String scale = field.getMetadata().get(SCALE_METADATA_KEY);
        yield scale == null ? INT64 : decimal(Integer.parseInt(scale));
      }
      case ArrowType.Decimal d when d.getBitWidth() == 128 && d.getPrecision() <= MAX_DECIMAL128_PRECISION
          && d.getScale() >= 0 -> decimal(d.getScale());
      case ArrowType.Decimal d -> throw new IllegalArgumentException("column '" + field.getName() + "' is " + type
          + "; memwall reads 128-bit decimals of precision up to " + MAX_DECIMAL128_PRECISION
          + " and scale >= 0 (they must fit a scaled int64)");
      case ArrowType.FloatingPoint f when f.getPrecision() == FloatingPointPrecision.DOUBLE -> FLOAT64;
      case ArrowType.Date d when d.getUnit() == DateUnit.DAY -> DATE;
      case ArrowType.Utf8 u -> STRING;
      default -> throw new IllegalArgumentException(
          "column '" + field.getName() + "' has Arrow type " + type + ", which memwall does not read");
    };
  }

  @Override
  public String toString() {
    return kind == Kind.DECIMAL ? "DECIMAL(scale " + scale + ")" : kind.name();
  }
}
