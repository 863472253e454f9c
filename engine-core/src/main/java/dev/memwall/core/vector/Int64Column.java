package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;

/**
 * A column of 64-bit signed integers (Arrow Int(64)), and the base of the other columns whose
 * values are 8-byte integers in memory (decimals, timestamps); see {@link Column} for the contract.
 * {@link Int32Column}, {@link NarrowIntColumn} and {@link Float64Column} are its specializations for
 * their widths and types (see {@link Column} on why they are apart).
 */
public class Int64Column extends Column {
  private final MemorySegment data;

  public Int64Column(BigIntVector vector) {
    this(vector, ColumnType.INT64);
  }

  Int64Column(BaseFixedWidthVector vector, ColumnType type) {
    super(vector, type);
    this.data = ArrowSegments.of(vector.getDataBuffer());
  }

  /** A view with its parts known (see {@link Column#Column(org.apache.arrow.vector.FieldVector, ColumnType, int, MemorySegment)}). */
  Int64Column(BaseFixedWidthVector vector, ColumnType type, int length, MemorySegment validity, MemorySegment data) {
    super(vector, type, length, validity);
    this.data = data;
  }

  /** The values, 8 bytes each, little-endian. */
  public final MemorySegment data() {
    return data;
  }

  public final long get(int row) {
    return data.getAtIndex(LONG, row);
  }

  @Override
  public final long getLong(int row) {
    return get(row);
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
