package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.IntVector;

/**
 * A column of 32-bit signed integers (Arrow Int(32)); see {@link Column} for the contract. A
 * specialization of {@link Int64Column} for 4-byte values (see {@link Column} on why they are apart).
 */
public class Int32Column extends Column {
  private final MemorySegment data;

  public Int32Column(IntVector vector) {
    this(vector, ColumnType.INT32);
  }

  Int32Column(BaseFixedWidthVector vector, ColumnType type) {
    super(vector, type);
    this.data = ArrowSegments.of(vector.getDataBuffer());
  }

  /** A view with its parts known (see {@link Column#Column(FieldVector, ColumnType, int, MemorySegment)}). */
  Int32Column(BaseFixedWidthVector vector, ColumnType type, int length, MemorySegment validity, MemorySegment data) {
    super(vector, type, length, validity);
    this.data = data;
  }

  /** The values, 4 bytes each, little-endian. */
  public final MemorySegment data() {
    return data;
  }

  public final int get(int row) {
    return data.getAtIndex(INT, row);
  }

  @Override
  public final long getLong(int row) {
    return get(row);
  }

  @Override
  public final double getDouble(int row) {
    return get(row);
  }

  @Override
  public Object getObject(int row) {
    return isNull(row) ? null : get(row);
  }
}
