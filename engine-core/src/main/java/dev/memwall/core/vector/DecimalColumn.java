package dev.memwall.core.vector;

import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import org.apache.arrow.vector.BigIntVector;

/**
 * A decimal column stored as scaled int64 ({@link ColumnType.Kind#DECIMAL}): {@link #get} returns
 * the unscaled value, {@link #getDecimal} the exact decimal. See {@link Column}.
 */
public final class DecimalColumn extends Int64Column {
  private final double unit;

  public DecimalColumn(BigIntVector vector, ColumnType type) {
    super(vector, type);
    this.unit = Math.pow(10, -type.scale());
  }

  /** A view with its parts known (see {@link Column#Column(org.apache.arrow.vector.FieldVector, ColumnType, int, MemorySegment)}). */
  DecimalColumn(BigIntVector vector, ColumnType type, int length, MemorySegment validity,
      MemorySegment data) {
    super(vector, type, length, validity, data);
    this.unit = Math.pow(10, -type.scale());
  }

  public int scale() {
    return type().scale();
  }

  /** The exact value at {@code row}. */
  public BigDecimal getDecimal(int row) {
    return BigDecimal.valueOf(get(row), scale());
  }

  @Override
  public double getDouble(int row) {
    return get(row) * unit;
  }

  @Override
  public Object getObject(int row) {
    return isNull(row) ? null : getDecimal(row);
  }
}
