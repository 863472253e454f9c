package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import org.apache.arrow.vector.DecimalVector;

/**
 * An Arrow Decimal128 column of precision at most {@value ColumnType#MAX_DECIMAL128_PRECISION}, as
 * Spark and other Arrow producers write decimals: every value fits an int64, so it is read as a
 * {@link ColumnType.Kind#DECIMAL} whose unscaled value is the low 8 bytes of each 16-byte slot.
 * Kernels read it through {@link #getLong} (a gather at stride 16); memwall's own files store
 * decimals as {@link DecimalColumn} instead, at half the bandwidth. See {@link Column} for the
 * contract.
 */
public final class Decimal128Column extends Column {
  private final MemorySegment data;
  private final int scale;

  public Decimal128Column(DecimalVector vector, ColumnType type) {
    super(vector, type);
    this.data = ArrowSegments.of(vector.getDataBuffer());
    this.scale = type.scale();
  }

  /** The unscaled value at {@code row} (the low 64 bits; the precision bound makes them exact). */
  public long get(int row) {
    return data.get(LONG, (long) row * DecimalVector.TYPE_WIDTH);
  }

  @Override
  public long getLong(int row) {
    return get(row);
  }

  @Override
  public double getDouble(int row) {
    return BigDecimal.valueOf(get(row), scale).doubleValue();
  }

  @Override
  public Object getObject(int row) {
    return isNull(row) ? null : BigDecimal.valueOf(get(row), scale);
  }
}
