package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import org.apache.arrow.vector.Float8Vector;

/**
 * A column of doubles (Arrow FloatingPoint(DOUBLE)); see {@link Column} for the contract. A
 * specialization of {@link Int64Column} for doubles (see {@link Column} on why they are apart).
 */
public final class Float64Column extends Column {
  private final MemorySegment data;

  public Float64Column(Float8Vector vector) {
    super(vector, ColumnType.FLOAT64);
    this.data = ArrowSegments.of(vector.getDataBuffer());
  }

  /** A view with its parts known (see {@link Column#Column(org.apache.arrow.vector.FieldVector, ColumnType, int, MemorySegment)}). */
  Float64Column(Float8Vector vector, int length, MemorySegment validity, MemorySegment data) {
    super(vector, ColumnType.FLOAT64, length, validity);
    this.data = data;
  }

  /** The values, 8 bytes each, little-endian IEEE 754. */
  public MemorySegment data() {
    return data;
  }

  public double get(int row) {
    return data.getAtIndex(DOUBLE, row);
  }

  @Override
  public double getDouble(int row) {
    return get(row);
  }

  @Override
  public Object getObject(int row) {
    return isNull(row) ? null : get(row);
  }
}
