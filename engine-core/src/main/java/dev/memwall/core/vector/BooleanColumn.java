package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.vector.BitVector;

/**
 * A column of booleans (Arrow Bool: one bit a value, least significant bit first), read as the
 * integers 0 and 1 ({@link ColumnType.Kind#BOOLEAN}). See {@link Column} for the contract. A
 * specialization of {@link Float64Column} for bits (see {@link Column} on why they are apart).
 */
public final class BooleanColumn extends Column {
  private final MemorySegment bits;

  public BooleanColumn(BitVector vector) {
    super(vector, ColumnType.BOOLEAN);
    this.bits = ArrowSegments.of(vector.getDataBuffer());
  }

  /** A view with its parts known (see {@link Column#Column(org.apache.arrow.vector.FieldVector, ColumnType, int, MemorySegment)}). */
  BooleanColumn(BitVector vector, int length, MemorySegment validity, MemorySegment bits) {
    super(vector, ColumnType.BOOLEAN, length, validity);
    this.bits = bits;
  }

  /** The value bits, least significant bit first. */
  public MemorySegment bits() {
    return bits;
  }

  public boolean get(int row) {
    return (bits.get(ValueLayout.JAVA_BYTE, row >>> 3) & (1 << (row & 7))) != 0;
  }

  @Override
  public long getLong(int row) {
    return (bits.get(ValueLayout.JAVA_BYTE, row >>> 3) >>> (row & 7)) & 1;
  }

  @Override
  public Object getObject(int row) {
    return isNull(row) ? null : get(row);
  }
}
