package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.vector.Float4Vector;

/**
 * An Arrow FloatingPoint(SINGLE) column read as {@link ColumnType.Kind#FLOAT64}, without a copy:
 * each float is widened to the double of exactly the same value as it is read (NaN stays NaN,
 * -0.0f becomes -0.0). What memwall writes from it is FloatingPoint(DOUBLE). See {@link Column}
 * for the contract.
 */
public final class Float32Column extends Column {
  private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;

  private final MemorySegment data;

  public Float32Column(Float4Vector vector) {
    super(vector, ColumnType.FLOAT64);
    this.data = ArrowSegments.of(vector.getDataBuffer());
  }

  /** The values, 4 bytes each, little-endian IEEE 754 single precision. */
  public MemorySegment data() {
    return data;
  }

  public float get(int row) {
    return data.getAtIndex(FLOAT, row);
  }

  @Override
  public double getDouble(int row) {
    return get(row);
  }

  @Override
  public Object getObject(int row) {
    return isNull(row) ? null : (double) get(row);
  }
}
