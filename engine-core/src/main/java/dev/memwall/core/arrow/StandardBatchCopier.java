package dev.memwall.core.arrow;

import dev.memwall.core.memory.ArrowSegments;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.BooleanColumn;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.Date64Column;
import dev.memwall.core.vector.Decimal128Column;
import dev.memwall.core.vector.DecimalColumn;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Float32Column;
import dev.memwall.core.vector.Float64Column;
import dev.memwall.core.vector.Int32Column;
import dev.memwall.core.vector.Int64Column;
import dev.memwall.core.vector.NarrowIntColumn;
import dev.memwall.core.vector.VarCharColumn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Copies one memwall batch into vectors of its {@linkplain StandardArrow standard schema}, which
 * may live in any allocator (a host's own {@code RootAllocator} included): the memwall batch stays
 * as it was and the copy shares no buffer with it.
 *
 * <p>Per column, buffer to buffer and without boxing a value:
 *
 * <ul>
 *   <li>INT32, INT64, FLOAT64, DATE, BOOLEAN, TIMESTAMP and Decimal128 sources: the type is
 *       unchanged, so the validity bitmap and the values are each one bulk copy.
 *   <li>columns read through a view (Int(8), Int(16), float32, Date(MILLISECOND)): widened value by
 *       value to their kind's standard type.
 *   <li>DECIMAL as memwall's scaled int64: widened exactly to Decimal128, each unscaled {@code long}
 *       written as its low 64 bits and their sign extension (what {@link DecimalVector#set(int, long)}
 *       does, without its per-row validity and bounds bookkeeping; native byte order, which is
 *       little-endian, Arrow's, on every platform Arrow Java runs on); the validity bitmap is one
 *       bulk copy.
 *   <li>plain Utf8: offsets, bytes and validity are bulk copies (offsets rebased when the first
 *       does not start at 0); LargeUtf8: the same with its offsets narrowed.
 *   <li>dictionary-encoded strings: decoded, each row's bytes copied from its dictionary entry
 *       (one short copy a row) into one data buffer sized exactly in a first pass; a row whose code points at a null
 *       dictionary entry is null, as memwall itself reads it.
 * </ul>
 *
 * <p>Nulls are kept: a null row is null in the copy (the values under it are unspecified). Bits
 * of the validity bitmap past the last row are zero. Buffers are allocated for the batch's size,
 * replacing (and freeing) whatever the target's vectors held.
 *
 * <p>Ownership: the source batch, its dictionaries and the target stay their owners'; the target's
 * new buffers belong to the target (freed when it is closed or next written). Thread safety: stateless;
 * copies into distinct targets may run concurrently, while one target must not be read or written
 * by anyone else during a copy into it. Bad input: {@link IllegalArgumentException} (naming the
 * column) for a target that is not of the source's standard schema, a non-nullable column holding
 * nulls, a dictionary code out of its dictionary's range, or a batch whose decoded strings exceed
 * Utf8's 2 GiB per vector; {@link NullPointerException} for a null argument; reading a source
 * whose buffers were freed fails with {@link IllegalStateException} (see {@link Column}). After a
 * failure the target's contents are unspecified but its buffers are still its own to free.
 */
public final class StandardBatchCopier {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

  private StandardBatchCopier() {}

  /**
   * A new root of the standard schema in {@code allocator} holding a copy of {@code source}; the
   * caller owns it (and closes it). Nothing stays allocated if the copy fails.
   *
   * @throws IllegalArgumentException as {@link #copy(Batch, VectorSchemaRoot)}
   */
  public static VectorSchemaRoot copy(Batch source, BufferAllocator allocator) {
    Objects.requireNonNull(allocator, "allocator");
    VectorSchemaRoot target = VectorSchemaRoot.create(StandardArrow.schema(source.schema()), allocator);
    try {
      copy(source, target);
      return target;
    } catch (RuntimeException | Error e) {
      target.close();
      throw e;
    }
  }

  /**
   * Copies the record batch {@code source}, whose dictionary-encoded columns' dictionaries
   * {@code dictionaries} resolves (a {@link dev.memwall.core.vector.Table#provider()}; null when none
   * is encoded), into {@code target}.
   *
   * @return the bytes written into the target's buffers
   * @throws IllegalArgumentException as {@link #copy(Batch, VectorSchemaRoot)}, or when a
   *     dictionary is missing or a column's Arrow type is one memwall does not read
   */
  public static long copy(VectorSchemaRoot source, DictionaryProvider dictionaries, VectorSchemaRoot target) {
    return copy(new Batch(Objects.requireNonNull(source, "source"), dictionaries), target);
  }

  /**
   * Copies {@code source} into {@code target}, whose columns must have the types and nullability of
   * {@link StandardArrow#schema}{@code (source.schema())} (names are not checked), and sets the
   * target's row count to the batch's.
   *
   * @return the bytes written into the target's buffers
   * @throws IllegalArgumentException if the target does not fit, a non-nullable column holds a
   *     null, a dictionary code is out of range, or decoded strings exceed 2 GiB in one column
   */
  public static long copy(Batch source, VectorSchemaRoot target) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(target, "target");
    checkTarget(source.schema(), target);
    int rows = source.rowCount();
    long bytes = 0;
    for (int c = 0; c < source.columns().size(); c++) {
      Column column = source.column(c);
      if (column.length() < rows) {
        throw new IllegalArgumentException("column '" + column.name() + "' has " + column.length()
            + " values in a batch of " + rows + " rows");
      }
      bytes += copyColumn(column, target.getVector(c), rows);
    }
    target.setRowCount(rows);
    return bytes;
  }

  /** Throws unless each target vector has the type and nullability of the source field's standard field. */
  private static void checkTarget(Schema memwall, VectorSchemaRoot target) {
    List<Field> fields = memwall.getFields();
    List<FieldVector> vectors = target.getFieldVectors();
    if (vectors.size() != fields.size()) {
      throw new IllegalArgumentException("target has " + vectors.size() + " columns for a batch of "
          + fields.size() + " (" + fields.stream().map(Field::getName).toList() + ")");
    }
    for (int c = 0; c < fields.size(); c++) {
      Field expected = StandardArrow.field(fields.get(c));
      Field actual = vectors.get(c).getField();
      if (!expected.getType().equals(actual.getType()) || expected.isNullable() != actual.isNullable()
          || actual.getDictionary() != null) {
        throw new IllegalArgumentException("target column " + c + " is " + actual + ", not " + expected
            + ", the standard field of column '" + fields.get(c).getName() + "'");
      }
    }
  }

  private static long copyColumn(Column source, FieldVector target, int rows) {
    boolean nullable = target.getField().isNullable();
    if (!nullable && source.hasNulls()) {
      throw new IllegalArgumentException("column '" + source.name() + "' is not nullable but holds nulls");
    }
    return switch (source) {
      case DictionaryColumn codes -> decode(codes, (VarCharVector) target, rows, nullable);
      case VarCharColumn strings -> copyStrings(strings, (VarCharVector) target, rows);
      case DecimalColumn decimals -> widen(decimals, (DecimalVector) target, rows);
      case Decimal128Column decimals -> copyFixed(decimals, ArrowSegments.of(decimals.arrow().getDataBuffer()),
          target, rows, DecimalVector.TYPE_WIDTH);
      case Int64Column longs -> copyFixed(longs, longs.data(), target, rows, Long.BYTES); // timestamps too
      case Int32Column ints -> copyFixed(ints, ints.data(), target, rows, Integer.BYTES); // dates too
      case Float64Column doubles -> copyFixed(doubles, doubles.data(), target, rows, Double.BYTES);
      case BooleanColumn bits -> copyBits(bits, (BitVector) target, rows);
      case NarrowIntColumn _, Date64Column _ -> widen(source, (BaseFixedWidthVector) target, rows);
      case Float32Column floats -> widen(floats, (Float8Vector) target, rows);
      default -> throw new IllegalArgumentException("column '" + source.name() + "' of type " + source.type()
          + " is a " + source.getClass().getSimpleName() + ", which has no standard copy");
    };
  }

  /** The type is unchanged: validity and values are one bulk copy each. */
  private static long copyFixed(Column source, MemorySegment values, FieldVector target, int rows, int width) {
    BaseFixedWidthVector fixed = (BaseFixedWidthVector) target;
    fixed.allocateNew(rows);
    long validity = copyValidity(source, fixed.getValidityBuffer(), rows);
    long bytes = (long) rows * width;
    MemorySegment.copy(values, 0, ArrowSegments.of(fixed.getDataBuffer()), 0, bytes);
    fixed.setValueCount(rows);
    return validity + bytes;
  }

  /** Bool to Bool: validity and value bits are one bulk copy each (bits past the last row cleared). */
  private static long copyBits(BooleanColumn source, BitVector target, int rows) {
    target.allocateNew(rows);
    long validity = copyValidity(source, target.getValidityBuffer(), rows);
    long bytes = (rows + 7L) >>> 3;
    if (bytes > 0) {
      MemorySegment to = ArrowSegments.of(target.getDataBuffer());
      MemorySegment.copy(source.bits(), 0, to, 0, bytes);
      int tail = rows & 7;
      if (tail != 0) {
        to.set(ValueLayout.JAVA_BYTE, bytes - 1, (byte) (to.get(ValueLayout.JAVA_BYTE, bytes - 1) & ((1 << tail) - 1)));
      }
    }
    target.setValueCount(rows);
    return validity + bytes;
  }

  /**
   * Int(8), Int(16) to Int(32) and Date(MILLISECOND) to Date(DAY), value by value through the view
   * (a date64 value that is not a whole day fails as reading it does); null rows are not read.
   */
  private static long widen(Column source, BaseFixedWidthVector target, int rows) {
    target.allocateNew(rows);
    long validity = copyValidity(source, target.getValidityBuffer(), rows);
    MemorySegment to = ArrowSegments.of(target.getDataBuffer());
    for (int i = 0; i < rows; i++) {
      to.setAtIndex(INT, i, source.isNull(i) ? 0 : (int) source.getLong(i));
    }
    target.setValueCount(rows);
    return validity + (long) rows * Integer.BYTES;
  }

  /** Float to double, value by value (exactly: every float is a double). */
  private static long widen(Float32Column source, Float8Vector target, int rows) {
    target.allocateNew(rows);
    long validity = copyValidity(source, target.getValidityBuffer(), rows);
    MemorySegment to = ArrowSegments.of(target.getDataBuffer());
    for (int i = 0; i < rows; i++) {
      to.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, source.get(i));
    }
    target.setValueCount(rows);
    return validity + (long) rows * Double.BYTES;
  }

  /**
   * Scaled int64 to Decimal128: the 16 little-endian bytes of a value are the long and its sign
   * extension, so each row is two stores and the unscaled value (and with the scale, the decimal)
   * is exact.
   */
  private static long widen(DecimalColumn source, DecimalVector target, int rows) {
    target.allocateNew(rows);
    long validity = copyValidity(source, target.getValidityBuffer(), rows);
    MemorySegment from = source.data();
    MemorySegment to = ArrowSegments.of(target.getDataBuffer());
    for (int i = 0; i < rows; i++) {
      long unscaled = from.getAtIndex(LONG, i);
      long at = (long) i * DecimalVector.TYPE_WIDTH;
      to.set(LONG, at, unscaled);
      to.set(LONG, at + Long.BYTES, unscaled >> 63);
    }
    target.setValueCount(rows);
    return validity + (long) rows * DecimalVector.TYPE_WIDTH;
  }

  /** Plain Utf8 to Utf8: validity, offsets and bytes are bulk copies. */
  private static long copyStrings(VarCharColumn source, VarCharVector target, int rows) {
    if (rows == 0) {
      return empty(target);
    }
    int first = source.offset(0);
    int end = source.offset(rows);
    if (first < 0 || end < first) {
      throw new IllegalArgumentException("column '" + source.name() + "' has offsets " + first + ".." + end);
    }
    int length = end - first;
    target.allocateNew(length, rows);
    long validity = copyValidity(source, target.getValidityBuffer(), rows);
    MemorySegment to = ArrowSegments.of(target.getOffsetBuffer());
    long offsetBytes = (long) (rows + 1) * Integer.BYTES;
    if (first == 0 && source.arrow() instanceof VarCharVector utf8) {
      MemorySegment.copy(ArrowSegments.of(utf8.getOffsetBuffer()), 0, to, 0, offsetBytes);
    } else { // rebased, or LargeUtf8's 64-bit offsets narrowed
      for (int i = 0; i <= rows; i++) {
        to.setAtIndex(INT, i, source.offset(i) - first);
      }
    }
    MemorySegment.copy(source.bytes(), first, ArrowSegments.of(target.getDataBuffer()), 0, length);
    target.setLastSet(rows - 1);
    target.setValueCount(rows);
    return validity + offsetBytes + length;
  }

  /**
   * Dictionary codes to Utf8: a first pass checks every code, sizes the data buffer and notes each
   * row's code (-1 for a null row or a null entry) in a heap array, a second writes offsets and
   * copies each row's entry bytes; rows whose entry is null become null.
   */
  private static long decode(DictionaryColumn source, VarCharVector target, int rows, boolean nullable) {
    if (rows == 0) {
      return empty(target);
    }
    VarCharColumn dictionary = source.dictionary();
    int entries = dictionary.length();
    // Each entry's start and length (-1: a null entry) read once rather than per row, unless the
    // dictionary has more entries than the batch rows (a large dictionary of a caller's own file).
    int[] starts = null;
    int[] lengths = null;
    if (entries <= rows) {
      starts = new int[entries];
      lengths = new int[entries];
      for (int e = 0; e < entries; e++) {
        starts[e] = dictionary.offset(e);
        lengths[e] = entryLength(dictionary, e);
      }
    }
    int[] codes = new int[rows];
    long total = 0;
    boolean nullEntries = false;
    for (int row = 0; row < rows; row++) {
      if (source.isNull(row)) {
        codes[row] = -1;
        continue;
      }
      int code = source.code(row);
      if (code < 0 || code >= entries) {
        throw new IllegalArgumentException("column '" + source.name() + "' has code " + code + " at row " + row
            + ", outside its dictionary of " + entries + " entries");
      }
      int length = lengths != null ? lengths[code] : entryLength(dictionary, code);
      if (length < 0) {
        if (!nullable) {
          throw new IllegalArgumentException("column '" + source.name() + "' is not nullable but row " + row
              + " has code " + code + ", a null dictionary entry");
        }
        nullEntries = true;
        codes[row] = -1;
      } else {
        codes[row] = code;
        total += length;
      }
    }
    if (total > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("column '" + source.name() + "' decodes to " + total
          + " bytes in one batch, more than a Utf8 vector's 2 GiB");
    }
    target.allocateNew(total, rows);
    long validity = copyValidity(source, target.getValidityBuffer(), rows);
    MemorySegment bits = ArrowSegments.of(target.getValidityBuffer());
    MemorySegment offsets = ArrowSegments.of(target.getOffsetBuffer());
    MemorySegment data = ArrowSegments.of(target.getDataBuffer());
    MemorySegment values = dictionary.bytes();
    int position = 0;
    offsets.setAtIndex(INT, 0, 0);
    for (int row = 0; row < rows; row++) {
      int code = codes[row];
      if (code >= 0) {
        int length = lengths != null ? lengths[code] : dictionary.byteLength(code);
        MemorySegment.copy(values, starts != null ? starts[code] : dictionary.offset(code), data, position, length);
        position += length;
      } else if (nullEntries && !source.isNull(row)) {
        clearBit(bits, row);
      }
      offsets.setAtIndex(INT, row + 1, position);
    }
    target.setLastSet(rows - 1);
    target.setValueCount(rows);
    return validity + (long) (rows + 1) * Integer.BYTES + total;
  }

  /** The byte length of a dictionary entry, -1 for a null entry. */
  private static int entryLength(VarCharColumn dictionary, int entry) {
    return dictionary.isNull(entry) ? -1 : dictionary.byteLength(entry);
  }

  private static long empty(VarCharVector target) {
    target.allocateNew(0, 0);
    target.setValueCount(0);
    return 0;
  }

  /**
   * Writes the validity of {@code rows} rows of {@code source} into {@code bitmap}: a copy of the
   * source's bitmap, or all set when it has no nulls; bits past the last row are cleared.
   *
   * @return the bytes written
   */
  private static long copyValidity(Column source, ArrowBuf bitmap, int rows) {
    long bytes = (rows + 7L) >>> 3;
    if (bytes == 0) {
      return 0;
    }
    MemorySegment to = ArrowSegments.of(bitmap);
    MemorySegment from = source.validity();
    if (from == null) {
      to.asSlice(0, bytes).fill((byte) -1);
    } else {
      MemorySegment.copy(from, 0, to, 0, bytes);
    }
    int tail = rows & 7;
    if (tail != 0) {
      byte last = to.get(ValueLayout.JAVA_BYTE, bytes - 1);
      to.set(ValueLayout.JAVA_BYTE, bytes - 1, (byte) (last & ((1 << tail) - 1)));
    }
    return bytes;
  }

  private static void clearBit(MemorySegment bits, int index) {
    long at = index >>> 3;
    bits.set(ValueLayout.JAVA_BYTE, at, (byte) (bits.get(ValueLayout.JAVA_BYTE, at) & ~(1 << (index & 7))));
  }
}
