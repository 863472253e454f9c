package dev.memwall.core.vector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Builds a {@link Table} row by row: operators use it to materialize results (aggregates, sorted
 * rows, projections). Strings are written as plain Utf8 (dictionary codes are decoded).
 *
 * <p>Rows are appended column by column: for each row call one {@code append*} per column, in
 * schema order, then {@link #endRow()}. Full batches of {@link #BATCH_ROWS} are sealed as they
 * fill.
 *
 * <p>Ownership: the builder owns its vectors until {@link #build()} hands them to the table (or
 * {@link #close()} frees them when building is abandoned). Thread safety: none.
 */
public final class TableBuilder implements AutoCloseable {
  /** Rows per output batch. */
  public static final int BATCH_ROWS = 1 << 16;
  /** Capacity of a first batch: small results stay small, large ones double a few times. */
  private static final int FIRST_BATCH_ROWS = 1 << 12;

  private final Schema schema;
  private final List<ColumnType> types;
  private final BufferAllocator allocator;
  private final List<VectorSchemaRoot> sealed = new ArrayList<>();
  private VectorSchemaRoot current;
  /** Capacity the next batch is allocated with: once a batch has filled, later ones start full size. */
  private int batchCapacity = FIRST_BATCH_ROWS;
  private int row;
  private int column;

  /** A builder for {@code columns}: names with types, all nullable. */
  public TableBuilder(List<String> names, List<ColumnType> types, BufferAllocator allocator) {
    if (names.size() != types.size()) {
      throw new IllegalArgumentException(names.size() + " names for " + types.size() + " types");
    }
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      fields.add(types.get(i).toField(names.get(i), true, null));
    }
    this.schema = new Schema(fields);
    this.types = List.copyOf(types);
    this.allocator = allocator;
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

  /** Appends an integral value (unscaled for decimals, days for dates). */
  public TableBuilder appendLong(long value) {
    switch (next()) {
      case BigIntVector v -> v.setSafe(row, value);
      case IntVector v -> v.setSafe(row, Math.toIntExact(value));
      case DateDayVector v -> v.setSafe(row, Math.toIntExact(value));
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
    if (!(next() instanceof VarCharVector v)) {
      throw wrongType(current.getVector(column - 1), "a string");
    }
    byte[] copy = new byte[length];
    MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, offset, copy, 0, length);
    v.setSafe(row, copy);
    return this;
  }

  public TableBuilder appendString(byte[] utf8) {
    if (!(next() instanceof VarCharVector v)) {
      throw wrongType(current.getVector(column - 1), "a string");
    }
    v.setSafe(row, utf8);
    return this;
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

  /** Appends row {@code sourceRow} of {@code source}, which must match the next column's type. */
  public TableBuilder appendFrom(Column source, int sourceRow) {
    if (source.isNull(sourceRow)) {
      return appendNull();
    }
    return switch (source) {
      case Float64Column doubles -> appendDouble(doubles.get(sourceRow));
      case VarCharColumn strings -> appendString(strings.bytes(), strings.offset(sourceRow), strings.byteLength(sourceRow));
      case DictionaryColumn codes -> {
        VarCharColumn values = codes.dictionary();
        int code = codes.code(sourceRow);
        yield appendString(values.bytes(), values.offset(code), values.byteLength(code));
      }
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
    int fit = Math.min(rows, BATCH_ROWS - row);
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

  /** The current batch's vector of {@code column}, for bulk appends after {@link #reserveRows}. */
  public FieldVector vector(int column) {
    return current.getVector(column);
  }

  /** The position in {@link #vector} the next row takes. */
  public int nextRow() {
    return row;
  }

  /** Completes {@code rows} rows written in bulk after {@link #reserveRows}. */
  public void commitRows(int rows) {
    if (rows < 0 || row + rows > BATCH_ROWS || current == null) {
      throw new IllegalStateException("cannot commit " + rows + " rows at row " + row);
    }
    row += rows;
    if (row == BATCH_ROWS) {
      seal();
    }
  }

  /**
   * Writes row {@code sourceRow} of the string column {@code source} (plain or dictionary-encoded,
   * decoded) at {@code index} of {@code target}, or null; the bytes are copied buffer to buffer.
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
        target.setSafe(index, values.offset(code), values.byteLength(code), values.arrow().getDataBuffer());
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
    if (row == BATCH_ROWS) {
      seal();
    }
  }

  private void seal() {
    if (row == BATCH_ROWS) {
      batchCapacity = BATCH_ROWS;
    }
    if (current != null) {
      current.setRowCount(row);
      sealed.add(current);
      current = null;
      row = 0;
    }
  }

  /** The table of all complete rows; the builder is empty afterwards. */
  public Table build() {
    return Table.own(schema, drainBatches(), Map.of());
  }

  /** The complete rows' record batches, handed to the caller to own; the builder is empty afterwards. */
  public List<VectorSchemaRoot> drainBatches() {
    seal();
    List<VectorSchemaRoot> roots = List.copyOf(sealed);
    sealed.clear();
    return roots;
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
