package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Builds a {@link Table} row by row: operators use it to materialize results (aggregates, sorted
 * rows, projections). A STRING column is written as plain Utf8 (dictionary codes decoded), or, when
 * the builder is asked to {@linkplain #TableBuilder(List, List, boolean[], BufferAllocator) encode}
 * it, as 4-byte dictionary codes with a {@link DictionaryEncoder} per column: codes of the first
 * small source dictionary are copied unchanged, other strings get codes by content. Whether an
 * encoded column stays encoded in the built table is decided when it is built ({@link #keepsEncoded}):
 * a dictionary that is not small against the rows is decoded then.
 *
 * <p>Rows are appended column by column: for each row call one {@code append*} per column, in
 * schema order, then {@link #endRow()}. Full batches of {@link #BATCH_ROWS} are sealed as they
 * fill.
 *
 * <p>Ownership: the builder owns its vectors until {@link #build()} hands them to the table (or
 * {@link #close()} frees them when building is abandoned); the sources an encoded column's codes
 * come from (dictionaries of the columns appended from) must stay readable until it is built, which
 * copies the dictionary once into the table. Thread safety: none.
 */
public final class TableBuilder implements AutoCloseable {
  /** Rows per output batch. */
  public static final int BATCH_ROWS = 1 << 16;
  /** Capacity of a first batch: small results stay small, large ones double a few times. */
  private static final int FIRST_BATCH_ROWS = 1 << 12;

  /** The type of a column's codes when it is written encoded. */
  private static final ArrowType.Int CODE_TYPE = new ArrowType.Int(32, true);

  private final Schema schema;
  private final List<String> names;
  private final List<ColumnType> types;
  /** Per column, the dictionary of an encoded STRING column; null for every other column. */
  private final DictionaryEncoder[] encoders;
  private final BufferAllocator allocator;
  private final List<VectorSchemaRoot> sealed = new ArrayList<>();
  private VectorSchemaRoot current;
  /** Capacity the next batch is allocated with: once a batch has filled, later ones start full size. */
  private int batchCapacity = FIRST_BATCH_ROWS;
  /** Rows per batch: {@link #BATCH_ROWS} unless {@link #batchRows(int)} made batches smaller. */
  private int batchRows = BATCH_ROWS;
  private int row;
  private int column;

  /** A builder for {@code columns}: names with types, all nullable; strings are written decoded. */
  public TableBuilder(List<String> names, List<ColumnType> types, BufferAllocator allocator) {
    this(names, types, null, allocator);
  }

  /**
   * A builder for {@code columns}: names with types, all nullable; the STRING columns {@code c} with
   * {@code encoded[c]} are written as dictionary codes (their vectors, for bulk appends, are
   * {@link IntVector}s of codes of {@link #encoder}{@code (c)}).
   *
   * @param encoded per column, whether to encode it; null: none
   * @throws IllegalArgumentException if a column to encode is not a STRING column, or the lists'
   *     lengths differ
   */
  public TableBuilder(List<String> names, List<ColumnType> types, boolean[] encoded, BufferAllocator allocator) {
    if (names.size() != types.size() || (encoded != null && encoded.length != types.size())) {
      throw new IllegalArgumentException(names.size() + " names for " + types.size() + " types"
          + (encoded == null ? "" : " and " + encoded.length + " encodings"));
    }
    this.encoders = new DictionaryEncoder[types.size()];
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      if (encoded != null && encoded[i]) {
        if (types.get(i).kind() != ColumnType.Kind.STRING) {
          throw new IllegalArgumentException("only STRING columns can be encoded, not column '" + names.get(i)
              + "' of type " + types.get(i));
        }
        encoders[i] = new DictionaryEncoder();
      }
      fields.add(field(names.get(i), types.get(i), encoders[i] != null, i));
    }
    this.schema = new Schema(fields);
    this.names = List.copyOf(names);
    this.types = List.copyOf(types);
    this.allocator = allocator;
  }

  /** The field of column {@code index}: codes into dictionary {@code index} when encoded. */
  private static Field field(String name, ColumnType type, boolean encoded, int index) {
    return type.toField(name, true, encoded ? new DictionaryEncoding(index, false, CODE_TYPE) : null);
  }

  /** The dictionary of column {@code column} when it is encoded, else null. */
  public DictionaryEncoder encoder(int column) {
    return encoders[column];
  }

  public Schema schema() {
    return schema;
  }

  private FieldVector next() {
    startBatch();
    return current.getVector(column++);
  }

  /**
   * Allocates the current batch if there is none. After a full batch the next ones are allocated at
   * {@link #BATCH_ROWS} at once: growing each by doubling would allocate, copy and free every
   * buffer several times per batch.
   */
  private void startBatch() {
    if (current == null) {
      current = VectorSchemaRoot.create(schema, allocator);
      for (FieldVector vector : current.getFieldVectors()) {
        vector.setInitialCapacity(batchCapacity);
      }
      current.allocateNew();
    }
  }

  /** Appends an integral value (unscaled for decimals, days for dates, units for timestamps, 0 or 1 for booleans). */
  public TableBuilder appendLong(long value) {
    if (encoders[column] != null) {
      throw wrongType(next(), "an integral value (it holds string codes)");
    }
    switch (next()) {
      case BigIntVector v -> v.setSafe(row, value);
      case IntVector v -> v.setSafe(row, Math.toIntExact(value));
      case DateDayVector v -> v.setSafe(row, Math.toIntExact(value));
      case TimeStampVector v -> v.setSafe(row, value);
      case BitVector v -> v.setSafe(row, value != 0 ? 1 : 0);
      case FieldVector v -> throw wrongType(v, "an integral value");
    }
    return this;
  }

  public TableBuilder appendDouble(double value) {
    if (!(next() instanceof Float8Vector v)) {
      throw wrongType(current.getVector(column - 1), "a double");
    }
    v.setSafe(row, value);
    return this;
  }

  /** Appends the UTF-8 bytes {@code [offset, offset + length)} of {@code bytes}. */
  public TableBuilder appendString(MemorySegment bytes, long offset, int length) {
    DictionaryEncoder encoder = encoders[column];
    if (encoder != null) {
      return appendCode(encoder.code(bytes, offset, length));
    }
    if (!(next() instanceof VarCharVector v)) {
      throw wrongType(current.getVector(column - 1), "a string");
    }
    byte[] copy = new byte[length];
    MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, offset, copy, 0, length);
    v.setSafe(row, copy);
    return this;
  }

  public TableBuilder appendString(byte[] utf8) {
    DictionaryEncoder encoder = encoders[column];
    if (encoder != null) {
      return appendCode(encoder.code(utf8.clone()));
    }
    if (!(next() instanceof VarCharVector v)) {
      throw wrongType(current.getVector(column - 1), "a string");
    }
    v.setSafe(row, utf8);
    return this;
  }

  /** Appends {@code value}, or a null when it is null (see {@link #appendLong(long)}). */
  public TableBuilder appendLongOrNull(Long value) {
    return value == null ? appendNull() : appendLong(value);
  }

  /** Appends {@code value} as UTF-8, or a null when it is null. */
  public TableBuilder appendStringOrNull(String value) {
    return value == null ? appendNull() : appendString(value.getBytes(StandardCharsets.UTF_8));
  }

  public TableBuilder appendNull() {
    FieldVector vector = next();
    if (vector instanceof BaseFixedWidthVector fixed) {
      fixed.setNull(row);
    } else {
      ((VarCharVector) vector).setNull(row);
    }
    return this;
  }

  /** The code of an encoded column's value; -1 (a null dictionary entry) appends a null. */
  private TableBuilder appendCode(int code) {
    FieldVector vector = next();
    if (code < 0) {
      ((IntVector) vector).setNull(row);
    } else {
      ((IntVector) vector).setSafe(row, code);
    }
    return this;
  }

  /** Appends row {@code sourceRow} of {@code source}, which must match the next column's type. */
  public TableBuilder appendFrom(Column source, int sourceRow) {
    if (source.isNull(sourceRow)) {
      return appendNull();
    }
    DictionaryEncoder encoder = encoders[column];
    if (encoder != null && source instanceof DictionaryColumn codes) {
      return appendCode(encoder.code(codes.dictionary(), codes.code(sourceRow)));
    }
    if (encoder == null && (source instanceof VarCharColumn || source instanceof DictionaryColumn)) {
      if (!(next() instanceof VarCharVector v)) {
        throw wrongType(current.getVector(column - 1), "a string");
      }
      copyString(source, sourceRow, v, row); // buffer to buffer, no copy on the heap
      return this;
    }
    return switch (source) {
      case Float64Column doubles -> appendDouble(doubles.get(sourceRow));
      case Float32Column floats -> appendDouble(floats.get(sourceRow));
      case VarCharColumn strings -> appendString(strings.bytes(), strings.offset(sourceRow), strings.byteLength(sourceRow));
      default -> appendLong(source.getLong(sourceRow));
    };
  }

  /**
   * Bulk appends, column at a time: makes room for up to {@code rows} more rows in the current
   * batch and returns how many fit there (at least 1 when {@code rows > 0}). The caller writes
   * those rows' values into {@link #vector}{@code (c)} for every column {@code c}, at positions
   * {@link #nextRow()} onwards (fixed-width vectors have the capacity; strings go through
   * {@link #copyString}), then calls {@link #commitRows}. Not to be mixed with a row appended half.
   */
  public int reserveRows(int rows) {
    if (column != 0) {
      throw new IllegalStateException("row " + row + " is half appended (" + column + " of " + types.size() + " values)");
    }
    startBatch();
    int fit = Math.min(rows, batchRows - row);
    for (FieldVector vector : current.getFieldVectors()) {
      if (vector instanceof BaseFixedWidthVector fixed) {
        while (fixed.getValueCapacity() < row + fit) {
          fixed.reAlloc();
        }
      }
    }
    return fit;
  }

  /**
   * Sets the non-null 4-byte value of row {@code index} of an int32 or date (days) vector, whose
   * capacity must already cover it (bulk appends after {@link #reserveRows}).
   */
  public static void setInt32(BaseFixedWidthVector vector, int index, int value) {
    BitVectorHelper.setBit(vector.getValidityBuffer(), index);
    vector.getDataBuffer().setInt((long) index * Integer.BYTES, value);
  }

  /**
   * Marks rows {@code [from, from + count)} of {@code vector} non-null, whose capacity must already
   * cover them: bulk appends mark a whole run at once, write the values straight into
   * {@link ArrowSegments#of the data buffer}, and {@linkplain BitVectorHelper#unsetBit unset} the
   * few null rows.
   */
  public static void setNonNull(BaseFixedWidthVector vector, int from, int count) {
    MemorySegment bits = ArrowSegments.of(vector.getValidityBuffer());
    int end = from + count;
    int i = from;
    for (; i < end && (i & 7) != 0; i++) {
      setBit(bits, i);
    }
    int wholeBytesEnd = end & ~7;
    if (i < wholeBytesEnd) {
      bits.asSlice(i >>> 3, (wholeBytesEnd - i) >>> 3).fill((byte) -1);
      i = wholeBytesEnd;
    }
    for (; i < end; i++) {
      setBit(bits, i);
    }
  }

  /**
   * Writes {@code value} at {@code index} of a fixed-width vector's data buffer ({@link ArrowSegments#of}),
   * {@code width} bytes wide as {@link #valueBytes} gives it: 8 (int64, decimals, timestamps, a
   * double's bits), 4 (int32, dates, codes) or 0, a bit (booleans: 0 clears it, anything else sets
   * it).
   *
   * @throws ArithmeticException if a 4-byte value does not fit
   */
  public static void setIntegral(MemorySegment data, int width, int index, long value) {
    switch (width) {
      case Long.BYTES -> data.setAtIndex(ValueLayout.JAVA_LONG, index, value);
      case Integer.BYTES -> data.setAtIndex(ValueLayout.JAVA_INT, index, Math.toIntExact(value));
      default -> {
        long at = index >>> 3;
        byte bits = data.get(ValueLayout.JAVA_BYTE, at);
        int mask = 1 << (index & 7);
        data.set(ValueLayout.JAVA_BYTE, at, (byte) (value != 0 ? bits | mask : bits & ~mask));
      }
    }
  }

  /**
   * The width {@link #setIntegral} takes for the values of {@code vector}: its type width in bytes,
   * 0 for a {@link BitVector}.
   */
  public static int valueBytes(BaseFixedWidthVector vector) {
    return vector instanceof BitVector ? 0 : vector.getTypeWidth();
  }

  /**
   * Sets the non-null value of row {@code index} of a fixed-width integral vector (int32, date,
   * int64, decimal, timestamp or boolean), whose capacity must already cover it (bulk appends after
   * {@link #reserveRows}).
   *
   * @throws ArithmeticException if the value does not fit a 4-byte vector
   */
  public static void setIntegral(BaseFixedWidthVector vector, int index, long value) {
    setIntegral(ArrowSegments.of(vector.getDataBuffer()), valueBytes(vector), index, value);
    BitVectorHelper.setBit(vector.getValidityBuffer(), index);
  }

  private static void setBit(MemorySegment bits, int index) {
    long at = index >>> 3;
    bits.set(ValueLayout.JAVA_BYTE, at, (byte) (bits.get(ValueLayout.JAVA_BYTE, at) | (1 << (index & 7))));
  }

  /** The current batch's vector of {@code column}, for bulk appends after {@link #reserveRows}. */
  public FieldVector vector(int column) {
    return current.getVector(column);
  }

  /** The position in {@link #vector} the next row takes. */
  public int nextRow() {
    return row;
  }

  /** Rows appended so far, over every batch. */
  public long rowCount() {
    long rows = row;
    for (VectorSchemaRoot batch : sealed) {
      rows += batch.getRowCount();
    }
    return rows;
  }

  /** Completes {@code rows} rows written in bulk after {@link #reserveRows}. */
  public void commitRows(int rows) {
    if (rows < 0 || row + rows > batchRows || current == null) {
      throw new IllegalStateException("cannot commit " + rows + " rows at row " + row);
    }
    row += rows;
    if (row == batchRows) {
      seal();
    }
  }

  /**
   * Writes row {@code sourceRow} of the string column {@code source} (plain or dictionary-encoded,
   * decoded) at {@code index} of {@code target}, or null (a null row, or a null dictionary entry);
   * the bytes are copied buffer to buffer.
   */
  public static void copyString(Column source, int sourceRow, VarCharVector target, int index) {
    if (source.isNull(sourceRow)) {
      target.setNull(index);
      return;
    }
    switch (source) {
      case VarCharColumn strings -> target.setSafe(index, strings.offset(sourceRow), strings.byteLength(sourceRow),
          strings.arrow().getDataBuffer());
      case DictionaryColumn codes -> {
        VarCharColumn values = codes.dictionary();
        int code = codes.code(sourceRow);
        if (values.isNull(code)) { // a null dictionary entry: the value is null, as DictionaryColumn reads it
          target.setNull(index);
        } else {
          target.setSafe(index, values.offset(code), values.byteLength(code), values.arrow().getDataBuffer());
        }
      }
      default -> throw new IllegalArgumentException("column '" + source.name() + "' of type " + source.type()
          + " is not a string column");
    }
  }

  /** Completes the current row. */
  public void endRow() {
    if (column != types.size()) {
      throw new IllegalStateException("row " + row + " has " + column + " of " + types.size() + " values");
    }
    column = 0;
    row++;
    if (row == batchRows) {
      seal();
    }
  }

  /**
   * Caps the rows of each batch at {@code rows} (a power of two from 64 to {@link #BATCH_ROWS}),
   * before the first row: smaller batches make smaller allocations, for a builder that must stay
   * within a tight memory limit (a sort collecting runs). Returns this builder.
   */
  public TableBuilder batchRows(int rows) {
    if (rows < 64 || rows > BATCH_ROWS || Integer.bitCount(rows) != 1) {
      throw new IllegalArgumentException("batch rows must be a power of two from 64 to " + BATCH_ROWS + ", got " + rows);
    }
    if (current != null || !sealed.isEmpty()) {
      throw new IllegalStateException("batch rows are set before the first row");
    }
    this.batchRows = rows;
    this.batchCapacity = Math.min(batchCapacity, rows);
    return this;
  }

  private void seal() {
    if (row == batchRows) {
      batchCapacity = batchRows;
    }
    if (current != null) {
      current.setRowCount(row);
      sealed.add(current);
      current = null;
      row = 0;
    }
  }

  /**
   * The table of all complete rows; the builder is empty afterwards. An encoded column stays
   * encoded when {@link #keepsEncoded} says its dictionary is worth it, with a copy of the
   * dictionary the table owns; else it is decoded here.
   */
  public Table build() {
    return concatenate(List.of(this));
  }

  /**
   * The complete rows' record batches, handed to the caller to own; the builder is empty
   * afterwards. Only for builders without encoded columns (their batches need their dictionaries:
   * {@link #build}, {@link #concatenate}).
   *
   * @throws IllegalStateException if a column is encoded
   */
  public List<VectorSchemaRoot> drainBatches() {
    for (DictionaryEncoder encoder : encoders) {
      if (encoder != null) {
        throw new IllegalStateException("a builder with encoded columns is built with build() or concatenate()");
      }
    }
    return drainAll();
  }

  private List<VectorSchemaRoot> drainAll() {
    seal();
    List<VectorSchemaRoot> roots = List.copyOf(sealed);
    sealed.clear();
    return roots;
  }

  /**
   * Whether a column of {@code rows} rows whose dictionary has {@code entries} entries is kept
   * encoded: the dictionary is at most {@link DictionaryEncoder#MAX_ENTRIES} entries and each entry
   * stands for two rows or more on average, so codes plus one copy of the dictionary take less
   * than the strings and grouping or comparing by code saves work.
   */
  public static boolean keepsEncoded(long entries, long rows) {
    return entries <= DictionaryEncoder.MAX_ENTRIES && 2 * entries <= rows;
  }

  /**
   * One table of the complete rows of all {@code parts} in order (the per-worker results of one
   * operator), which must have the same column names and types; every part is empty afterwards and
   * must still be closed. A column encoded in every part stays encoded if {@link #keepsEncoded}
   * (the parts' codes translated into the first part's dictionary where their dictionaries differ),
   * and is decoded in every part otherwise. Built from the first part's allocator.
   *
   * @throws IllegalArgumentException if the parts' columns differ or there are none
   */
  public static Table concatenate(List<TableBuilder> parts) {
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("no parts to concatenate");
    }
    TableBuilder first = parts.getFirst();
    for (TableBuilder part : parts) {
      if (!part.names.equals(first.names) || !part.types.equals(first.types)) {
        throw new IllegalArgumentException("parts of columns " + part.names + " " + part.types + " and "
            + first.names + " " + first.types + " cannot be concatenated");
      }
    }
    List<List<VectorSchemaRoot>> batches = new ArrayList<>();
    Map<Long, Dictionary> dictionaries = new HashMap<>();
    try {
      long rows = 0;
      for (TableBuilder part : parts) {
        batches.add(new ArrayList<>(part.drainAll()));
        rows += batches.getLast().stream().mapToLong(VectorSchemaRoot::getRowCount).sum();
      }
      List<Field> fields = new ArrayList<>();
      for (int c = 0; c < first.types.size(); c++) {
        boolean encoded = true;
        for (TableBuilder part : parts) {
          encoded &= part.encoders[c] != null;
        }
        DictionaryEncoder target = null;
        if (encoded) {
          target = first.encoders[c];
          for (TableBuilder part : parts) {
            if (part.encoders[c].size() > 0) {
              target = part.encoders[c];
              break;
            }
          }
          for (int p = 0; p < parts.size(); p++) {
            translate(batches.get(p), c, parts.get(p).encoders[c], target);
          }
          encoded = keepsEncoded(target.size(), rows);
        }
        if (encoded) {
          Field field = field(first.names.get(c), first.types.get(c), true, c);
          dictionaries.put((long) c, new Dictionary(target.toVector(field.getName() + "-dictionary", first.allocator),
              field.getDictionary()));
        } else {
          for (int p = 0; p < parts.size(); p++) {
            DictionaryEncoder codes = parts.get(p).encoders[c];
            if (codes != null) {
              decode(batches.get(p), c, target != null ? target : codes, first.types.get(c), parts.get(p).allocator);
            }
          }
        }
        fields.add(field(first.names.get(c), first.types.get(c), encoded, c));
      }
      Schema schema = new Schema(fields);
      List<VectorSchemaRoot> roots = new ArrayList<>();
      batches.forEach(roots::addAll);
      return Table.own(schema, roots, dictionaries);
    } catch (RuntimeException | Error e) {
      batches.forEach(list -> list.forEach(VectorSchemaRoot::close));
      dictionaries.values().forEach(d -> d.getVector().close());
      throw e;
    }
  }

  /**
   * Rewrites column {@code c}'s codes of {@code source} in {@code roots} as codes of {@code target}
   * (entry by entry through their values), unless they already are.
   */
  private static void translate(List<VectorSchemaRoot> roots, int c, DictionaryEncoder source,
      DictionaryEncoder target) {
    if (source == target || source.size() == 0 || source.codesValidIn(target)) {
      return;
    }
    int[] translation = new int[source.size()];
    boolean identity = true;
    for (int code = 0; code < translation.length; code++) {
      byte[] value = source.bytes(code);
      translation[code] = value == null ? -1 : target.code(value);
      identity &= translation[code] == code && !target.isNull(code);
    }
    if (identity) {
      return;
    }
    for (VectorSchemaRoot root : roots) { // through the buffers: a part's codes are a worker's whole result
      IntVector codes = (IntVector) root.getVector(c);
      MemorySegment values = ArrowSegments.of(codes.getDataBuffer());
      MemorySegment validity = ArrowSegments.of(codes.getValidityBuffer());
      for (int row = 0; row < root.getRowCount(); row++) {
        if ((validity.get(ValueLayout.JAVA_BYTE, row >>> 3) >> (row & 7) & 1) != 0) {
          int code = translation[values.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, row)];
          if (code < 0) {
            codes.setNull(row);
          } else {
            values.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, row, code);
          }
        }
      }
    }
  }

  /** Replaces column {@code c} of each of {@code roots} (codes of {@code dictionary}) by its strings. */
  private static void decode(List<VectorSchemaRoot> roots, int c, DictionaryEncoder dictionary, ColumnType type,
      BufferAllocator allocator) {
    for (int r = 0; r < roots.size(); r++) {
      VectorSchemaRoot root = roots.get(r);
      IntVector codes = (IntVector) root.getVector(c);
      int rows = root.getRowCount();
      VarCharVector strings = new VarCharVector(type.toField(codes.getName(), true, null), allocator);
      try {
        strings.allocateNew(Math.max(1, rows));
        for (int row = 0; row < rows; row++) {
          if (codes.isNull(row)) {
            strings.setNull(row);
          } else {
            dictionary.copyTo(codes.get(row), strings, row);
          }
        }
        strings.setValueCount(rows);
      } catch (RuntimeException | Error e) {
        strings.close();
        throw e;
      }
      List<FieldVector> vectors = new ArrayList<>(root.getFieldVectors());
      vectors.set(c, strings);
      List<Field> fields = vectors.stream().map(FieldVector::getField).toList();
      roots.set(r, new VectorSchemaRoot(fields, vectors, rows));
      codes.close();
    }
  }

  @Override
  public void close() {
    sealed.forEach(VectorSchemaRoot::close);
    sealed.clear();
    if (current != null) {
      current.close();
      current = null;
    }
  }

  private static IllegalArgumentException wrongType(FieldVector vector, String what) {
    return new IllegalArgumentException("column '" + vector.getName() + "' of type "
        + vector.getField().getType() + " cannot take " + what);
  }
}
