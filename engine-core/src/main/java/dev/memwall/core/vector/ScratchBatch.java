package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A small batch of at most {@code capacity} rows whose Arrow vectors are allocated once and
 * rewritten for every chunk a streaming operator emits (a join probe's output): the values stay in
 * the cache, and nothing is allocated per chunk but the {@link Batch} view.
 *
 * <p>Writing: for each column write the values of rows {@code [0, rows)} into {@link #values}{@code (c)}
 * (fixed width, little-endian, {@link ColumnType#valueBytes()} each: 4 bytes for INT32 and DATE, 8
 * for INT64, DECIMAL, TIMESTAMP and FLOAT64, a bit for BOOLEAN; {@link TableBuilder#setIntegral}
 * writes any of them), call
 * {@link #clearNulls} and mark nulls with {@link #setNull}, then {@link #publish} the rows; the
 * published columns are views made without counting nulls or resolving segments again.
 *
 * <p>Strings are not copied: a STRING column holds 4-byte codes into a {@link VarCharColumn} given
 * at {@link #publish} (a build side's column, or the column of the batch the rows came from), and is
 * read as a {@link DictionaryColumn} over that column. Its field is dictionary-encoded with 32-bit
 * codes; the dictionary is resolved by the batch itself, not through a provider.
 *
 * <p>Ownership: the creator closes the vectors; a published batch is valid until the next
 * {@link #publish} or {@link #close}, so consumers must not keep it beyond their call. Thread safety:
 * none.
 */
public final class ScratchBatch implements AutoCloseable {
  private static final ArrowType.Int CODE_TYPE = new ArrowType.Int(32, true);

  private final Schema schema;
  private final ColumnType[] types;
  private final VectorSchemaRoot root;
  private final MemorySegment[] values;
  private final MemorySegment[] validity;
  /** Whether column c has a null among the rows being written (since its {@link #clearNulls}). */
  private final boolean[] anyNull;
  private final int capacity;

  /** Vectors for {@code capacity} rows of the named columns, all nullable. */
  public ScratchBatch(List<String> names, List<ColumnType> types, int capacity, BufferAllocator allocator) {
    if (names.size() != types.size()) {
      throw new IllegalArgumentException(names.size() + " names for " + types.size() + " types");
    }
    this.schema = schema(names, types);
    this.types = types.toArray(ColumnType[]::new);
    this.capacity = capacity;
    this.root = VectorSchemaRoot.create(schema, allocator);
    try {
      values = new MemorySegment[names.size()];
      validity = new MemorySegment[names.size()];
      anyNull = new boolean[names.size()];
      for (int c = 0; c < names.size(); c++) {
        BaseFixedWidthVector vector = (BaseFixedWidthVector) root.getVector(c);
        vector.allocateNew(capacity);
        values[c] = ArrowSegments.of(vector.getDataBuffer());
        validity[c] = ArrowSegments.of(vector.getValidityBuffer());
      }
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }

  /**
   * The schema of the published batches: the given types, STRING as dictionary-encoded Utf8 with
   * 32-bit codes (dictionary id = column position).
   */
  public static Schema schema(List<String> names, List<ColumnType> types) {
    List<Field> fields = new ArrayList<>();
    for (int c = 0; c < names.size(); c++) {
      ColumnType type = types.get(c);
      DictionaryEncoding codes = type.kind() == ColumnType.Kind.STRING ? new DictionaryEncoding(c, false, CODE_TYPE) : null;
      fields.add(type.toField(names.get(c), true, codes));
    }
    return new Schema(fields);
  }

  public Schema schema() {
    return schema;
  }

  public int capacity() {
    return capacity;
  }

  /** The value memory of column {@code c}: 4 or 8 bytes per row (codes for strings), a bit for booleans. */
  public MemorySegment values(int c) {
    return values[c];
  }

  /** Marks rows {@code [0, rows)} of column {@code c} valid; call before {@link #setNull}. */
  public void clearNulls(int c, int rows) {
    anyNull[c] = false;
    MemorySegment bits = validity[c];
    int whole = rows >>> 3;
    bits.asSlice(0, whole).fill((byte) -1);
    int rest = rows & 7;
    if (rest != 0) {
      bits.set(ValueLayout.JAVA_BYTE, whole, (byte) ((1 << rest) - 1));
    }
  }

  /** Marks row {@code row} of column {@code c} null. */
  public void setNull(int c, int row) {
    anyNull[c] = true;
    MemorySegment bits = validity[c];
    long at = row >>> 3;
    bits.set(ValueLayout.JAVA_BYTE, at, (byte) (bits.get(ValueLayout.JAVA_BYTE, at) & ~(1 << (row & 7))));
  }

  /**
   * Publishes rows {@code [0, rows)}, whose values and validity are written, as a batch.
   *
   * @param dictionaries for each STRING column, the strings its codes index (entries of other
   *     columns are ignored)
   */
  public Batch publish(int rows, VarCharColumn[] dictionaries) {
    if (rows < 0 || rows > capacity) {
      throw new IllegalArgumentException("cannot publish " + rows + " rows of a batch of " + capacity);
    }
    root.setRowCount(rows);
    List<Column> columns = new ArrayList<>(types.length);
    for (int c = 0; c < types.length; c++) {
      FieldVector vector = root.getVector(c);
      MemorySegment nulls = anyNull[c] ? validity[c] : null;
      MemorySegment data = values[c];
      ColumnType type = types[c];
      columns.add(switch (type.kind()) {
        case INT32 -> new Int32Column((IntVector) vector, type, rows, nulls, data);
        case DATE -> new DateColumn((DateDayVector) vector, rows, nulls, data);
        case INT64 -> new Int64Column((BigIntVector) vector, type, rows, nulls, data);
        case DECIMAL -> new DecimalColumn((BigIntVector) vector, type, rows, nulls, data);
        case FLOAT64 -> new Float64Column((Float8Vector) vector, rows, nulls, data);
        case STRING -> new DictionaryColumn(vector, dictionaries[c], rows, nulls, data);
        case BOOLEAN -> new BooleanColumn((BitVector) vector, rows, nulls, data);
        case TIMESTAMP -> new TimestampColumn((TimeStampVector) vector, type, rows, nulls, data);
      });
    }
    return new Batch(root, columns);
  }

  @Override
  public void close() {
    root.close();
  }
}
