package dev.memwall.spark;

import dev.memwall.core.vector.Column;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The common part of memwall's Spark column vectors: read-only views of a memwall column (a memwall
 * table's buffers, owned by the table), of one scalar type; nulls are the column's. Every getter a subclass does not override throws
 * {@link UnsupportedOperationException} naming the column and its type, as asking a column for a
 * value of another type is a bug in the caller; {@link #close} frees nothing, since the view owns
 * nothing.
 *
 * <p>Thread safety: subclasses are immutable views, safe for concurrent readers while the memory
 * they view stays open.
 */
abstract class ViewVector extends ColumnVector {
  private final Column column;

  ViewVector(Column column, DataType type) {
    super(type);
    this.column = column;
  }

  /** The column's name, for messages. */
  final String name() {
    return column.name();
  }

  @Override
  public final boolean hasNull() {
    return column.hasNulls();
  }

  @Override
  public final int numNulls() {
    return column.arrow().getNullCount();
  }

  @Override
  public final boolean isNullAt(int rowId) {
    return column.isNull(rowId);
  }

  @Override
  public void close() {}

  @Override
  public boolean getBoolean(int rowId) {
    throw unsupported("boolean");
  }

  @Override
  public byte getByte(int rowId) {
    throw unsupported("byte");
  }

  @Override
  public short getShort(int rowId) {
    throw unsupported("short");
  }

  @Override
  public int getInt(int rowId) {
    throw unsupported("int");
  }

  @Override
  public long getLong(int rowId) {
    throw unsupported("long");
  }

  @Override
  public float getFloat(int rowId) {
    throw unsupported("float");
  }

  @Override
  public double getDouble(int rowId) {
    throw unsupported("double");
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    throw unsupported("decimal");
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    throw unsupported("string");
  }

  @Override
  public byte[] getBinary(int rowId) {
    throw unsupported("binary");
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw unsupported("array");
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    throw unsupported("map");
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw unsupported("struct");
  }

  private UnsupportedOperationException unsupported(String what) {
    return new UnsupportedOperationException("column '" + name() + "' is " + dataType() + ", not " + what);
  }
}
