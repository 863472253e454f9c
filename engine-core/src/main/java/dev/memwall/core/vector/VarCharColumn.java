package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * A column of UTF-8 strings (Arrow Utf8, or LargeUtf8 with 64-bit offsets): row {@code i} is the
 * bytes {@code [offset(i), offset(i + 1))} of {@link #bytes()}. Both layouts are read in place,
 * and everything that takes a string column takes either.
 *
 * <p>Offsets are {@code int}s: a LargeUtf8 batch may hold more than 2 GiB of string bytes, and
 * reading a row that starts or ends beyond that fails with an {@link ArithmeticException} naming
 * the column (such a batch would not fit the Utf8 vectors memwall writes either). See
 * {@link Column} for the contract.
 */
public final class VarCharColumn extends Column {
  private final MemorySegment offsets;
  private final MemorySegment bytes;
  /** Whether the offsets are 8 bytes (LargeUtf8) rather than 4. */
  private final boolean large;

  public VarCharColumn(VarCharVector vector) {
    this(vector, ArrowSegments.of(vector.getOffsetBuffer()), false);
  }

  public VarCharColumn(LargeVarCharVector vector) {
    this(vector, ArrowSegments.of(vector.getOffsetBuffer()), true);
  }

  private VarCharColumn(FieldVector vector, MemorySegment offsets, boolean large) {
    super(vector, ColumnType.STRING);
    this.offsets = offsets;
    this.bytes = ArrowSegments.of(vector.getDataBuffer());
    this.large = large;
  }

  /**
   * A view of a Utf8 or LargeUtf8 vector.
   *
   * @throws IllegalArgumentException naming the vector when it is neither
   */
  public static VarCharColumn of(FieldVector vector) {
    return switch (vector) {
      case VarCharVector utf8 -> new VarCharColumn(utf8);
      case LargeVarCharVector large -> new VarCharColumn(large);
      default -> throw new IllegalArgumentException("column '" + vector.getName() + "' of Arrow type "
          + vector.getField().getType() + " is not a Utf8 or LargeUtf8 column");
    };
  }

  /** Whether {@code vector} is a Utf8 or LargeUtf8 vector, which {@link #of} views. */
  public static boolean isStringVector(FieldVector vector) {
    return vector instanceof VarCharVector || vector instanceof LargeVarCharVector;
  }

  /** All rows' bytes back to back. */
  public MemorySegment bytes() {
    return bytes;
  }

  /** Where row {@code row} starts in {@link #bytes()}. */
  public int offset(int row) {
    return large ? narrow(offsets.getAtIndex(LONG, row)) : offsets.getAtIndex(INT, row);
  }

  /** Byte length of row {@code row}. */
  public int byteLength(int row) {
    if (large) {
      return narrow(offsets.getAtIndex(LONG, row + 1)) - narrow(offsets.getAtIndex(LONG, row));
    }
    return offsets.getAtIndex(INT, row + 1) - offsets.getAtIndex(INT, row);
  }

  /** Row {@code row}'s bytes as a slice of {@link #bytes()}. */
  public MemorySegment slice(int row) {
    int start = offset(row);
    return bytes.asSlice(start, byteLength(row));
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

  private int narrow(long offset) {
    if (offset != (int) offset) {
      throw new ArithmeticException("column '" + name() + "' is LargeUtf8 with more than 2 GiB of string bytes in "
          + "one batch; memwall reads string batches of up to 2 GiB");
    }
    return (int) offset;
  }
}
