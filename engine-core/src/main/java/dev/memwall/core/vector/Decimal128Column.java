package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * An Arrow Decimal128 column, as Spark and other Arrow producers write decimals, read as a
 * {@link ColumnType.Kind#DECIMAL} of the same scale: the unscaled value is the 16-byte slot's low
 * 8 bytes. Up to precision {@value ColumnType#MAX_DECIMAL128_PRECISION} every value fits them. For
 * a wider column (precision 19 to 38) {@link #getLong} checks that the high 8 bytes are only the
 * sign of the low ones, and refuses a value that needs more with an {@link ArithmeticException}
 * naming the column, its type, the row and the exact value: memwall's decimals are exact scaled
 * int64s, never wrapped or rounded. Null rows are never checked.
 *
 * <p>Kernels read it through {@link #getLong} (a gather at stride 16); memwall's own files store
 * decimals as {@link DecimalColumn} instead, at half the bandwidth. See {@link Column} for the
 * contract.
 */
public final class Decimal128Column extends Column {
  private final MemorySegment data;
  private final int scale;
  /** Whether the declared precision lets a value exceed the low 64 bits (so each is checked). */
  private final boolean checked;

  public Decimal128Column(DecimalVector vector, ColumnType type) {
    super(vector, type);
    this.data = ArrowSegments.of(vector.getDataBuffer());
    this.scale = type.scale();
    this.checked = vector.getPrecision() > ColumnType.MAX_DECIMAL128_PRECISION;
  }

  /** The unscaled value at {@code row}: the low 64 bits, checked as {@link #getLong} is. */
  public long get(int row) {
    long offset = (long) row * DecimalVector.TYPE_WIDTH;
    long low = data.get(LONG, offset);
    if (checked && data.get(LONG, offset + Long.BYTES) != (low >> 63) && !isNull(row)) {
      throw tooWide(row, low, data.get(LONG, offset + Long.BYTES));
    }
    return low;
  }

  /**
   * The unscaled value at {@code row}.
   *
   * @throws ArithmeticException naming the column when a value of a column wider than precision
   *     {@value ColumnType#MAX_DECIMAL128_PRECISION} does not fit 64 bits
   */
  @Override
  public long getLong(int row) {
    return get(row);
  }

  @Override
  public double getDouble(int row) {
    return BigDecimal.valueOf(get(row), scale).doubleValue();
  }

  /** The exact value at {@code row}, all 128 bits of it (null for a null row); never refused. */
  @Override
  public Object getObject(int row) {
    if (isNull(row)) {
      return null;
    }
    long offset = (long) row * DecimalVector.TYPE_WIDTH;
    return new BigDecimal(unscaled(data.get(LONG, offset), data.get(LONG, offset + Long.BYTES)), scale);
  }

  private ArithmeticException tooWide(int row, long low, long high) {
    ArrowType.Decimal type = (ArrowType.Decimal) arrow().getField().getType();
    return new ArithmeticException("column '" + name() + "' is " + ColumnType.describe(type) + " and row " + row
        + " holds " + new BigDecimal(unscaled(low, high), scale).toPlainString() + ", beyond the 64-bit unscaled "
        + "values (18 digits) memwall computes decimals with exactly");
  }

  private static BigInteger unscaled(long low, long high) {
    return BigInteger.valueOf(high).shiftLeft(64).or(new BigInteger(Long.toUnsignedString(low)));
  }
}
