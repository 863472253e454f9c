package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;

/**
 * A dictionary-encoded string column: each row holds a 1, 2 or 4 byte signed code into a
 * {@link VarCharColumn} of distinct values. Predicates on such a column are evaluated once per
 * dictionary entry and then applied by code, and grouping uses the codes directly.
 * Unsigned index types are refused with {@link IllegalArgumentException} rather than misread.
 * See {@link Column} for the contract.
 */
public final class DictionaryColumn extends Column {
  private final MemorySegment codes;
  private final int codeBytes;
  private final VarCharColumn dictionary;

  /**
   * A view of 4-byte codes with its parts known (see
   * {@link Column#Column(FieldVector, ColumnType, int, MemorySegment)}).
   */
  DictionaryColumn(FieldVector codes, VarCharColumn dictionary, int length, MemorySegment validity,
      MemorySegment codeBytes) {
    super(codes, ColumnType.STRING, length, validity);
    this.codes = codeBytes;
    this.codeBytes = 4;
    this.dictionary = dictionary;
  }

  public DictionaryColumn(BaseIntVector indices, VarCharColumn dictionary) {
    super((FieldVector) indices, ColumnType.STRING);
    FieldVector vector = (FieldVector) indices;
    this.codes = ArrowSegments.of(vector.getDataBuffer());
    this.codeBytes = vector.getField().getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Int i
        && i.getIsSigned() ? i.getBitWidth() / 8 : 0;
    if (codeBytes != 1 && codeBytes != 2 && codeBytes != 4) {
      throw new IllegalArgumentException("dictionary column '" + vector.getName()
          + "' needs signed 8, 16 or 32 bit codes, not " + vector.getField().getType());
    }
    this.dictionary = dictionary;
  }

  /** The distinct values; {@code dictionary().length()} is the number of codes. */
  public VarCharColumn dictionary() {
    return dictionary;
  }

  /** The raw codes, {@link #codeBytes()} bytes each. */
  public MemorySegment codes() {
    return codes;
  }

  /** Width of one code in bytes: 1, 2 or 4. */
  public int codeBytes() {
    return codeBytes;
  }

  /** The dictionary code at {@code row}. */
  public int code(int row) {
    return switch (codeBytes) {
      case 1 -> codes.get(ValueLayout.JAVA_BYTE, row);
      case 2 -> codes.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, row);
      default -> codes.getAtIndex(INT, row);
    };
  }

  /**
   * Reads the codes of rows {@code [firstRow, firstRow + count)} into {@code into[0..count)}: for a
   * chunk read whole, a sequential loop (which the JIT compiles to SIMD) instead of a gather.
   */
  public void readCodes(int firstRow, int count, int[] into) {
    long first = firstRow;
    switch (codeBytes) {
      case 1 -> {
        for (int k = 0; k < count; k++) {
          into[k] = codes.get(ValueLayout.JAVA_BYTE, first + k);
        }
      }
      case 2 -> {
        for (int k = 0; k < count; k++) {
          into[k] = codes.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, first + k);
        }
      }
      default -> MemorySegment.copy(codes, INT, first * Integer.BYTES, into, 0, count);
    }
  }

  /**
   * Reads the codes of rows {@code firstRow + k} for the first {@code n} positions {@code k} of
   * {@code positions} into {@code into[k]}: one loop per code width, for kernels that need the
   * codes of a whole chunk.
   */
  public void readCodes(int firstRow, int[] positions, int n, int[] into) {
    switch (codeBytes) {
      case 1 -> {
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          into[k] = codes.get(ValueLayout.JAVA_BYTE, firstRow + k);
        }
      }
      case 2 -> {
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          into[k] = codes.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, firstRow + k);
        }
      }
      default -> {
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          into[k] = codes.getAtIndex(INT, firstRow + k);
        }
      }
    }
  }

  @Override
  public long getLong(int row) {
    return code(row);
  }

  @Override
  public Object getObject(int row) {
    return isNull(row) ? null : dictionary.getString(code(row));
  }
}
