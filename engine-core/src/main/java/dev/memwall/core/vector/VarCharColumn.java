package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.VarCharVector;

/**
 * A column of UTF-8 strings (Arrow Utf8): row {@code i} is the bytes
 * {@code [offset(i), offset(i + 1))} of {@link #bytes()}. See {@link Column} for the contract.
 */
public final class VarCharColumn extends Column {
  private final MemorySegment offsets;
  private final MemorySegment bytes;

  public VarCharColumn(VarCharVector vector) {
    super(vector, ColumnType.STRING);
    this.offsets = ArrowSegments.of(vector.getOffsetBuffer());
    this.bytes = ArrowSegments.of(vector.getDataBuffer());
  }

  /** All rows' bytes back to back. */
  public MemorySegment bytes() {
    return bytes;
  }

  /** Where row {@code row} starts in {@link #bytes()}. */
  public int offset(int row) {
    return offsets.getAtIndex(INT, row);
  }

  /** Byte length of row {@code row}. */
  public int byteLength(int row) {
    return offsets.getAtIndex(INT, row + 1) - offsets.getAtIndex(INT, row);
  }

  /** Row {@code row}'s bytes as a slice of {@link #bytes()}. */
  public MemorySegment slice(int row) {
    int start = offset(row);
    return bytes.asSlice(start, offsets.getAtIndex(INT, row + 1) - start);
  }

  /** Row {@code row} decoded as a Java string (null for a null row). */
  public String getString(int row) {
    if (isNull(row)) {
      return null;
    }
    int start = offset(row);
    int length = byteLength(row);
    byte[] utf8 = new byte[length];
    MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, start, utf8, 0, length);
    return new String(utf8, StandardCharsets.UTF_8);
  }

  @Override
  public Object getObject(int row) {
    return getString(row);
  }
}
