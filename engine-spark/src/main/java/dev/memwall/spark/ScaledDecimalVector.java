package dev.memwall.spark;

import dev.memwall.core.vector.DecimalColumn;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;

/**
 * A memwall decimal column (a scaled int64: value = unscaled / 10^scale) as a Spark column of
 * {@code DecimalType(18, scale)}, read in place: each {@link #getDecimal} wraps the int64 in a compact
 * Spark {@link Decimal} without copying the column. Arrow's Decimal128, the standard form, would need a
 * 16-byte copy of every value; Spark's own {@code ArrowColumnVector} would read the int64 as a
 * {@code LongType}.
 *
 * <p>Bad input: an unscaled value of 19 digits (|v| &ge; 10^18), which no {@code DecimalType(18, s)}
 * holds, throws {@link ArithmeticException} naming the column rather than being misread.
 *
 * <p>Ownership: a view; the memwall column's buffers belong to its table, which must stay open while
 * Spark reads the batch. Thread safety: read-only, safe for concurrent readers.
 */
final class ScaledDecimalVector extends ViewVector {
  private static final long LIMIT = 1_000_000_000_000_000_000L; // 10^18

  private final DecimalColumn column;

  ScaledDecimalVector(DecimalColumn column) {
    super(column, DataTypes.createDecimalType(SparkTypes.SCALED_DECIMAL_PRECISION, column.scale()));
    this.column = column;
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    if (column.isNull(rowId)) {
      return null;
    }
    return Decimal.createUnsafe(unscaled(rowId), precision, scale);
  }

  /** The unscaled value, the compact representation Spark keeps for precision up to 18. */
  @Override
  public long getLong(int rowId) {
    return unscaled(rowId);
  }

  private long unscaled(int rowId) {
    long value = column.getLong(rowId);
    if (value >= LIMIT || value <= -LIMIT) {
      throw new ArithmeticException("decimal column '" + name() + "' holds " + column.getDecimal(rowId)
          + " at row " + rowId + ", which has more digits than the DecimalType(" + SparkTypes.SCALED_DECIMAL_PRECISION
          + ", " + column.scale() + ") Spark reads it as");
    }
    return value;
  }
}
