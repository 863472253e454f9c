package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * A typed, read-only view of one Arrow vector with {@link MemorySegment} fast paths.
 *
 * <p>A column caches the segments of its Arrow buffers when created: it is valid while the Arrow
 * vector keeps those buffers (until the vector is closed, cleared or reallocated); reading after
 * that fails with {@link IllegalStateException} for engine-allocated and memory-mapped buffers.
 * Accessors take a row index in {@code [0, length())} and are bounds-checked by FFM.
 *
 * <p>Nulls: {@link #isNull} reads Arrow's validity bitmap; value accessors return whatever bits
 * the vector holds at a null position, so callers that care test {@link #isNull} first.
 *
 * <p>The subclasses of one Arrow width ({@link Int32Column}, {@link Int64Column},
 * {@link NarrowIntColumn}, {@link Float64Column}, {@link BooleanColumn} and the other views) repeat
 * the same constructors and accessors on purpose: each is a specialization holding its data
 * segment and reading it at its own width, so a kernel that knows the class reads memory straight
 * through a monomorphic, final accessor.
 *
 * <p>Thread safety: immutable view; safe for concurrent readers.
 */
public abstract class Column {
  static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

  private final FieldVector vector;
  private final ColumnType type;
  private final int length;
  private final MemorySegment validity;

  Column(FieldVector vector, ColumnType type) {
    this.vector = vector;
    this.type = type;
    this.length = vector.getValueCount();
    this.validity = validityIfAnyNull(vector, length);
  }

  /**
   * The validity bitmap of {@code vector}'s first {@code length} rows, or null when none of them is
   * null. Scans the bitmap a word at a time and stops at the first null: Arrow's
   * {@code getNullCount} counts bit by bit, which cost a streamed scan about 4 us per column and batch.
   */
  private static MemorySegment validityIfAnyNull(FieldVector vector, int length) {
    if (length == 0) {
      return null;
    }
    ArrowBuf buffer = vector.getValidityBuffer();
    if (buffer == null || buffer.capacity() < (length + 7L) / 8) {
      return vector.getNullCount() == 0 ? null : ArrowSegments.of(vector.getValidityBuffer());
    }
    MemorySegment bits = ArrowSegments.of(buffer);
    int words = length >>> 6;
    for (int w = 0; w < words; w++) {
      if (bits.get(ValueLayout.JAVA_LONG_UNALIGNED, (long) w * Long.BYTES) != -1L) {
        return bits;
      }
    }
    for (int i = words << 6; i < length; i++) {
      if ((bits.get(ValueLayout.JAVA_BYTE, i >>> 3) & (1 << (i & 7))) == 0) {
        return bits;
      }
    }
    return null;
  }

  /**
   * A view whose length and validity bitmap (null: no row is null) the caller already knows: the
   * cheap path for a batch rewritten in place ({@link ScratchBatch}), which neither counts nulls nor
   * resolves segments per chunk.
   */
  Column(FieldVector vector, ColumnType type, int length, MemorySegment validity) {
    this.vector = vector;
    this.type = type;
    this.length = length;
    this.validity = validity;
  }

  /**
   * Wraps {@code vector} in the column class of its type: the {@link ColumnType} kinds' own classes,
   * and views that read Int(8) and Int(16) ({@link NarrowIntColumn}), FloatingPoint(SINGLE)
   * ({@link Float32Column}), Date(MILLISECOND) ({@link Date64Column}), Decimal128 of any precision
   * ({@link Decimal128Column}) and LargeUtf8 (as {@link VarCharColumn}) in place.
   *
   * @param dictionaries resolves dictionary-encoded vectors; may be null when none is encoded
   * @throws IllegalArgumentException naming the vector when its type is unsupported or its
   *     dictionary is missing
   */
  public static Column of(FieldVector vector, DictionaryProvider dictionaries) {
    var encoding = vector.getField().getDictionary();
    if (encoding != null) {
      Dictionary dictionary = dictionaries == null ? null : dictionaries.lookup(encoding.getId());
      if (dictionary == null || !VarCharColumn.isStringVector(dictionary.getVector())) {
        throw new IllegalArgumentException("column '" + vector.getName()
            + "' is dictionary-encoded but its string dictionary " + encoding.getId() + " is missing");
      }
      return new DictionaryColumn((BaseIntVector) vector, VarCharColumn.of(dictionary.getVector()));
    }
    ColumnType type = ColumnType.of(vector.getField());
    return switch (vector) {
      case IntVector ints -> new Int32Column(ints);
      case TinyIntVector tiny -> new NarrowIntColumn(tiny);
      case SmallIntVector small -> new NarrowIntColumn(small);
      case DateDayVector days -> new DateColumn(days);
      case DateMilliVector millis -> new Date64Column(millis);
      case BigIntVector longs when type.kind() == ColumnType.Kind.DECIMAL -> new DecimalColumn(longs, type);
      case BigIntVector longs -> new Int64Column(longs, type);
      case DecimalVector wide -> new Decimal128Column(wide, type);
      case Float8Vector doubles -> new Float64Column(doubles);
      case Float4Vector floats -> new Float32Column(floats);
      case BitVector bits -> new BooleanColumn(bits);
      case TimeStampVector timestamps -> new TimestampColumn(timestamps);
      default -> VarCharColumn.of(vector);
    };
  }

  public final String name() {
    return vector.getName();
  }

  public final ColumnType type() {
    return type;
  }

  /** Number of rows. */
  public final int length() {
    return length;
  }

  /** The Arrow vector this column views. */
  public final FieldVector arrow() {
    return vector;
  }

  /** Whether any row is null. */
  public final boolean hasNulls() {
    return validity != null;
  }

  /** Arrow's validity bitmap (bit set = valid), or null when the column has no nulls. */
  public final MemorySegment validity() {
    return validity;
  }

  public final boolean isNull(int row) {
    return validity != null && (validity.get(ValueLayout.JAVA_BYTE, row >>> 3) & (1 << (row & 7))) == 0;
  }

  /**
   * The value at {@code row} as a long: the int for INT32 and DATE, the unscaled value for
   * DECIMAL, 0 or 1 for BOOLEAN, the count of units for TIMESTAMP, the dictionary code for
   * dictionary-encoded strings.
   *
   * @throws UnsupportedOperationException for FLOAT64 and plain strings
   */
  public long getLong(int row) {
    throw new UnsupportedOperationException("column '" + name() + "' of type " + type + " has no long values");
  }

  /** The value at {@code row} as a double (decimals are scaled). */
  public double getDouble(int row) {
    throw new UnsupportedOperationException("column '" + name() + "' of type " + type + " has no numeric values");
  }

  /** The value at {@code row} as a Java object for display and tests, or null. */
  public abstract Object getObject(int row);

  @Override
  public String toString() {
    return name() + ": " + type + " x " + length;
  }
}
