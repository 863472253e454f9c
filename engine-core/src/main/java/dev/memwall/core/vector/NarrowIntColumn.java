package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;

/**
 * An Arrow Int(8) or Int(16) column read as {@link ColumnType.Kind#INT32}, without a copy: each
 * value is read at its own width and sign-extended. Kernels read it through {@link #getLong}
 * (it is not an {@link Int32Column}, whose memory holds 4-byte values); what memwall writes from it
 * is Int(32). See {@link Column} for the contract. A specialization of {@link Int64Column} for
 * 1- and 2-byte values (see {@link Column} on why they are apart).
 */
public final class NarrowIntColumn extends Column {
  private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;

  private final MemorySegment data;
  private final int bytes;

  public NarrowIntColumn(TinyIntVector vector) {
    super(vector, ColumnType.INT32);
    this.data = ArrowSegments.of(vector.getDataBuffer());
    this.bytes = 1;
  }

  public NarrowIntColumn(SmallIntVector vector) {
    super(vector, ColumnType.INT32);
    this.data = ArrowSegments.of(vector.getDataBuffer());
    this.bytes = 2;
  }

  /** The width of a value in memory: 1 or 2 bytes. */
  public int valueBytes() {
    return bytes;
  }

  /** The values, {@link #valueBytes()} each, little-endian. */
  public MemorySegment data() {
    return data;
  }

  public int get(int row) {
    return bytes == 1 ? data.get(ValueLayout.JAVA_BYTE, row) : data.getAtIndex(SHORT, row);
  }

  @Override
  public long getLong(int row) {
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
