package dev.memwall.spark;

import dev.memwall.core.vector.BatchStream;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.TableBuilder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;

/**
 * Spark rows read into memwall's Arrow batches as a memwall plan consumes them ({@code Plan.scan(BatchStream)}):
 * each {@link #next} copies up to {@value #BATCH_ROWS} rows of the iterator into a new batch, so the
 * input is never held whole. Column {@code i} is named {@code c<i>} and has the memwall type of Spark's
 * type ({@link #columnType}).
 *
 * <p>Ownership: each batch is the caller's to close; its memory comes from the allocator given (the
 * task's engine memory). The rows are read as they come (Spark may reuse a row object for the next).
 * Bad input: a decimal whose unscaled value is beyond int64 (memwall's scaled decimals) fails with an
 * {@link ArithmeticException} naming the column. Thread safety: one consumer.
 */
final class RowBatches implements BatchStream {
  /** Rows per batch: memwall's chunks fill, and a batch of a few narrow columns stays small. */
  static final int BATCH_ROWS = 1 << 14;

  private final Iterator<InternalRow> rows;
  private final DataType[] types;
  private final List<String> names = new ArrayList<>();
  private final List<ColumnType> columnTypes = new ArrayList<>();
  private final BufferAllocator allocator;
  private final Schema schema;

  /**
   * @param rows the rows, each with {@code types.length} columns of these types
   * @param types Spark's type of each column, each one {@link #columnType} maps
   * @param allocator where the batches are allocated
   * @throws IllegalArgumentException for a type memwall does not hold
   */
  RowBatches(Iterator<InternalRow> rows, DataType[] types, BufferAllocator allocator) {
    this.rows = rows;
    this.types = types.clone();
    this.allocator = allocator;
    for (int i = 0; i < types.length; i++) {
      names.add(name(i));
      ColumnType type = columnType(types[i]);
      if (type == null) {
        throw new IllegalArgumentException("memwall holds no column of Spark type " + types[i].simpleString());
      }
      columnTypes.add(type);
    }
    try (TableBuilder builder = new TableBuilder(names, columnTypes, allocator)) {
      this.schema = builder.schema();
    }
  }

  /** The name of column {@code i}. */
  static String name(int i) {
    return "c" + i;
  }

  /**
   * The memwall type holding the values of Spark's {@code type}, or null when there is none: int, bigint,
   * double, date and string as themselves, a decimal of non-negative scale as memwall's scaled int64 of its
   * scale, a boolean as an INT32 0 or 1.
   */
  static ColumnType columnType(DataType type) {
    if (DataTypes.IntegerType.equals(type) || DataTypes.BooleanType.equals(type)) {
      return ColumnType.INT32;
    } else if (DataTypes.LongType.equals(type)) {
      return ColumnType.INT64;
    } else if (DataTypes.DoubleType.equals(type)) {
      return ColumnType.FLOAT64;
    } else if (DataTypes.DateType.equals(type)) {
      return ColumnType.DATE;
    } else if (DataTypes.StringType.equals(type)) {
      return ColumnType.STRING;
    } else if (type instanceof DecimalType decimal && decimal.scale() >= 0) {
      return ColumnType.decimal(decimal.scale());
    }
    return null;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public DictionaryProvider dictionaries() {
    return null;
  }

  @Override
  public VectorSchemaRoot next() {
    if (!rows.hasNext()) {
      return null;
    }
    try (TableBuilder builder = new TableBuilder(names, columnTypes, allocator)) {
      for (int n = 0; n < BATCH_ROWS && rows.hasNext(); n++) {
        append(builder, rows.next());
      }
      List<VectorSchemaRoot> batches = builder.drainBatches();
      if (batches.size() != 1) { // BATCH_ROWS is below TableBuilder's batch size
        batches.forEach(VectorSchemaRoot::close);
        throw new IllegalStateException("memwall: " + batches.size() + " batches where one was built");
      }
      return batches.getFirst();
    }
  }

  private void append(TableBuilder builder, InternalRow row) {
    for (int i = 0; i < types.length; i++) {
      appendValue(builder, row, i, types[i]);
    }
    builder.endRow();
  }

  /**
   * Appends {@code row}'s value {@code i}, of Spark's {@code type} (one {@link #columnType} maps), to the
   * column {@code builder} is at.
   *
   * @throws ArithmeticException for a decimal beyond memwall's 18 digits
   */
  static void appendValue(TableBuilder builder, InternalRow row, int i, DataType type) {
    if (row.isNullAt(i)) {
      builder.appendNull();
    } else if (DataTypes.IntegerType.equals(type) || DataTypes.DateType.equals(type)) {
      builder.appendLong(row.getInt(i));
    } else if (DataTypes.LongType.equals(type)) {
      builder.appendLong(row.getLong(i));
    } else if (DataTypes.DoubleType.equals(type)) {
      builder.appendDouble(row.getDouble(i));
    } else if (DataTypes.StringType.equals(type)) {
      builder.appendString(row.getUTF8String(i).getBytes());
    } else if (DataTypes.BooleanType.equals(type)) {
      builder.appendLong(row.getBoolean(i) ? 1 : 0);
    } else {
      DecimalType decimal = (DecimalType) type;
      Decimal value = row.getDecimal(i, decimal.precision(), decimal.scale());
      try {
        builder.appendLong(value.toUnscaledLong());
      } catch (ArithmeticException e) {
        throw new ArithmeticException("memwall: the decimal " + value + " of column " + i + " (" + type.simpleString()
            + ") is beyond memwall's 18 digits; run the query with " + MemwallSettings.ACCELERATION + "=false");
      }
    }
  }

  @Override
  public void close() {}
}
