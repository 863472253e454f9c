package dev.memwall.spark;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's internal values of a memwall aggregation result: the column of a Spark aggregation's output
 * that an {@link OutputSlot} reads, as the Java object Spark's rows hold for its type ({@code Integer} for
 * int and date, {@code Long}, {@code Double}, {@code Boolean}, {@link Decimal}, {@link UTF8String}).
 *
 * <p>Every value is a copy: a row made of them stays valid after memwall's result is freed. Thread
 * safety: stateless.
 */
final class SparkValues {
  private SparkValues() {}

  /** The value of {@code slot} at {@code row} of {@code batch}, as a Spark value of {@code type} (null: null). */
  static Object of(Batch batch, int row, OutputSlot slot, DataType type) {
    Column column = batch.column(slot.column());
    boolean isNull = column.isNull(row);
    return switch (slot.kind()) {
      case IS_NULL -> isNull;
      case COUNT -> isNull ? 0L : column.getLong(row);
      case VALUE -> isNull ? null : value(column, row, type);
      case VALUE_OR_ZERO -> isNull ? zero(type) : value(column, row, type);
      case TOTAL_MIN -> isNull ? null
          : batch.column(slot.column() + 1).getLong(row) == 0 ? Double.NaN : value(column, row, type);
      case IS_EMPTY -> isNull || column.getLong(row) != 0;
      case SUM_UNLESS_NULL -> batch.column(slot.column() + 1).getLong(row) < batch.column(slot.column() + 2).getLong(row)
          ? null : isNull ? zero(type) : value(column, row, type);
    };
  }

  /**
   * The value at {@code row} of a memwall result column, as Spark's internal value of {@code type}.
   *
   * @throws IllegalStateException for a type memwall's results are not read as
   */
  static Object value(Column column, int row, DataType type) {
    if (DataTypes.IntegerType.equals(type) || DataTypes.DateType.equals(type)) {
      return (int) column.getLong(row);
    } else if (DataTypes.LongType.equals(type)) {
      return column.getLong(row);
    } else if (DataTypes.DoubleType.equals(type)) {
      return column.type().kind() == ColumnType.Kind.FLOAT64 ? column.getDouble(row) : (double) column.getLong(row);
    } else if (type instanceof DecimalType decimal) {
      return Decimal.apply(column.getLong(row), decimal.precision(), decimal.scale());
    } else if (DataTypes.StringType.equals(type)) {
      return UTF8String.fromString((String) column.getObject(row));
    } else if (DataTypes.BooleanType.equals(type)) {
      return column.getLong(row) != 0;
    }
    throw new IllegalStateException("memwall: no Spark value of type " + type + " for column " + column);
  }

  /** Zero of a numeric Spark type, as Spark's aggregation buffers start. */
  static Object zero(DataType type) {
    if (type instanceof DecimalType decimal) {
      return Decimal.apply(0L, decimal.precision(), decimal.scale());
    } else if (DataTypes.DoubleType.equals(type)) {
      return 0.0;
    } else if (DataTypes.LongType.equals(type)) {
      return 0L;
    } else if (DataTypes.IntegerType.equals(type)) {
      return 0;
    }
    throw new IllegalStateException("memwall: no zero of type " + type);
  }
}
