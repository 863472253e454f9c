package dev.memwall.spark;

import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The rows of a column that passed a pushed filter, without copying them: row {@code i} of this
 * vector is row {@code rows[i]} of the column it views. Spark's {@code ColumnarBatch} has no
 * selection vector, so the selection memwall's filter kernels produce is applied here, one
 * indirection per value read, instead of gathering every selected value into new buffers.
 *
 * <p>Ownership: a view of both the column and the {@code rows} array, which the partition reader
 * reuses for its next batch (Spark reads a batch fully before asking for the next). Thread safety:
 * read-only while the reader does not advance.
 */
final class SelectedVector extends ColumnVector {
  private final ColumnVector column;
  private final int[] rows;
  private final int count;
  private int nulls = -1;

  /** The first {@code count} entries of {@code rows}, increasing row numbers of {@code column}. */
  SelectedVector(ColumnVector column, int[] rows, int count) {
    super(column.dataType());
    this.column = column;
    this.rows = rows;
    this.count = count;
  }

  @Override
  public void close() {}

  @Override
  public boolean hasNull() {
    return column.hasNull() && numNulls() > 0;
  }

  @Override
  public int numNulls() {
    if (nulls < 0) {
      int n = 0;
      if (column.hasNull()) {
        for (int i = 0; i < count; i++) {
          if (column.isNullAt(rows[i])) {
            n++;
          }
        }
      }
      nulls = n;
    }
    return nulls;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return column.isNullAt(rows[rowId]);
  }

  @Override
  public boolean getBoolean(int rowId) {
    return column.getBoolean(rows[rowId]);
  }

  @Override
  public byte getByte(int rowId) {
    return column.getByte(rows[rowId]);
  }

  @Override
  public short getShort(int rowId) {
    return column.getShort(rows[rowId]);
  }

  @Override
  public int getInt(int rowId) {
    return column.getInt(rows[rowId]);
  }

  @Override
  public long getLong(int rowId) {
    return column.getLong(rows[rowId]);
  }

  @Override
  public float getFloat(int rowId) {
    return column.getFloat(rows[rowId]);
  }

  @Override
  public double getDouble(int rowId) {
    return column.getDouble(rows[rowId]);
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    return column.getDecimal(rows[rowId], precision, scale);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    return column.getUTF8String(rows[rowId]);
  }

  @Override
  public byte[] getBinary(int rowId) {
    return column.getBinary(rows[rowId]);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    return column.getArray(rows[rowId]);
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    return column.getMap(rows[rowId]);
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw new UnsupportedOperationException("memwall columns are scalar; " + dataType() + " has no children");
  }
}
