package dev.memwall.spark;

import dev.memwall.core.vector.ColumnType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The Spark SQL type of each column memwall reads, derived from the column's Arrow field the way
 * {@link ColumnType#of} reads it:
 *
 * <ul>
 *   <li>INT32: {@code IntegerType}; INT64: {@code LongType}; FLOAT64: {@code DoubleType}; DATE (days):
 *       {@code DateType}.
 *   <li>STRING, plain Utf8 or dictionary-encoded: {@code StringType} (Spark sees decoded strings).
 *   <li>DECIMAL held as memwall's scaled Int64 (scale in the field metadata): {@code DecimalType(18, s)}.
 *       memwall records no precision; 18 digits is the most a Spark decimal holds as a long (compact in
 *       Spark's rows and aggregation buffers). The rare int64 value of 19 digits does not fit: reading it
 *       fails with an {@link ArithmeticException} naming the column rather than being misread
 *       ({@link ScaledDecimalVector}). A Decimal128 column of precision {@code p <= 18}:
 *       {@code DecimalType(p, s)}.
 * </ul>
 *
 * <p>Names and nullability are kept. Thread safety: stateless.
 */
final class SparkTypes {
  /** The precision given to memwall's scaled-int64 decimals (Spark's {@code Decimal.MAX_LONG_DIGITS}). */
  static final int SCALED_DECIMAL_PRECISION = 18;

  private SparkTypes() {}

  /**
   * The Spark schema of a memwall table's Arrow schema (the columns {@code ArrowFiles.map} kept),
   * without the columns the connector does not serve yet, whose reasons go to {@code leftOut}.
   */
  static StructType of(Schema schema, Map<String, String> leftOut) {
    List<StructField> fields = new ArrayList<>();
    for (Field field : schema.getFields()) {
      String reason = unsupported(field);
      if (reason != null) {
        leftOut.putIfAbsent(field.getName(), reason);
      } else {
        fields.add(DataTypes.createStructField(field.getName(), of(field), field.isNullable()));
      }
    }
    return DataTypes.createStructType(fields);
  }

  /**
   * Why the connector does not serve {@code field}, or null when it does. memwall reads more Arrow
   * types than the connector hands to Spark (narrow integers, float32, date64, booleans, timestamps,
   * large strings, wide decimals): those need column vectors of their own, which are not written yet.
   */
  static String unsupported(Field field) {
    boolean served = field.getDictionary() != null || switch (field.getType()) { // dictionaries: strings
      case ArrowType.Int i -> i.getIsSigned() && (i.getBitWidth() == 32 || i.getBitWidth() == 64);
      case ArrowType.FloatingPoint f -> f.getPrecision() == FloatingPointPrecision.DOUBLE;
      case ArrowType.Date d -> d.getUnit() == DateUnit.DAY;
      case ArrowType.Utf8 u -> true;
      case ArrowType.Decimal d -> d.getBitWidth() == 128 && d.getPrecision() <= SCALED_DECIMAL_PRECISION;
      default -> false;
    };
    return served ? null : "column '" + field.getName() + "' has Arrow type " + field.getType()
        + ", which the Spark connector does not serve yet";
  }

  /**
   * The Spark type of one column.
   *
   * @throws IllegalArgumentException naming the column when memwall does not read its Arrow type
   */
  static DataType of(Field field) {
    ColumnType type = ColumnType.of(field);
    return switch (type.kind()) {
      case INT32 -> DataTypes.IntegerType;
      case INT64 -> DataTypes.LongType;
      case FLOAT64 -> DataTypes.DoubleType;
      case DATE -> DataTypes.DateType;
      case STRING -> DataTypes.StringType;
      case DECIMAL -> field.getType() instanceof ArrowType.Decimal wide
          ? DataTypes.createDecimalType(wide.getPrecision(), wide.getScale())
          : DataTypes.createDecimalType(SCALED_DECIMAL_PRECISION, type.scale());
      case BOOLEAN, TIMESTAMP -> throw new IllegalArgumentException(unsupported(field));
    };
  }

  /**
   * The Arrow field the connector writes for a Spark column of a supported type ({@link #isSupported}):
   * the type a read maps back to the same Spark type (a decimal as Decimal128 of its precision).
   *
   * @throws IllegalArgumentException naming the column for any other type
   */
  static Field arrowField(StructField column) {
    DataType type = column.dataType();
    ArrowType arrow;
    if (DataTypes.IntegerType.equals(type)) {
      arrow = new ArrowType.Int(32, true);
    } else if (DataTypes.LongType.equals(type)) {
      arrow = new ArrowType.Int(64, true);
    } else if (DataTypes.DoubleType.equals(type)) {
      arrow = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    } else if (DataTypes.DateType.equals(type)) {
      arrow = new ArrowType.Date(DateUnit.DAY);
    } else if (DataTypes.StringType.equals(type)) {
      arrow = ArrowType.Utf8.INSTANCE;
    } else if (type instanceof DecimalType decimal && isSupported(decimal)) {
      arrow = new ArrowType.Decimal(decimal.precision(), decimal.scale(), 128);
    } else {
      throw new IllegalArgumentException("memwall cannot write column '" + column.name() + "' of type "
          + type.simpleString() + "; it writes int, bigint, double, date, string and decimals of up to "
          + SCALED_DECIMAL_PRECISION + " digits");
    }
    return new Field(column.name(), new FieldType(column.nullable(), arrow, null), null);
  }

  /** Whether {@code type} is one a memwall column maps to (see the class comment). */
  static boolean isSupported(DataType type) {
    return DataTypes.IntegerType.equals(type) || DataTypes.LongType.equals(type) || DataTypes.DoubleType.equals(type)
        || DataTypes.DateType.equals(type) || DataTypes.StringType.equals(type)
        || (type instanceof DecimalType d && d.precision() <= SCALED_DECIMAL_PRECISION && d.scale() >= 0);
  }
}
