package dev.memwall.spark;

import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Spark rows copied into a memwall table: the build side of a join Spark broadcast as rows
 * ({@link JoinTask}). Each Spark type becomes the memwall column type {@link SparkTypes} reads back as
 * it: int as INT32, bigint as INT64, double as FLOAT64, date as DATE (days), string as STRING, and a
 * decimal of at most 18 digits as memwall's scaled int64 of its scale; nulls stay nulls.
 *
 * <p>Ownership: the returned table is allocated from {@code allocator} and is the caller's to close; on
 * a failure nothing stays allocated. Bad input: a type outside {@link #supports} throws
 * {@link IllegalArgumentException} naming the column (the rule checks the types before planning).
 * Thread safety: stateless.
 */
final class RowTables {
  private RowTables() {}

  /** Whether rows of {@code type} can be copied. */
  static boolean supports(DataType type) {
    return SparkTypes.isSupported(type);
  }

  /** The memwall column type of Spark's {@code field}. */
  static ColumnType columnType(StructField field) {
    if (!supports(field.dataType())) {
      throw new IllegalArgumentException("memwall cannot copy column '" + field.name() + "' of type "
          + field.dataType().simpleString() + " from Spark's rows");
    }
    return RowBatches.columnType(field.dataType());
  }

  /**
   * A table of {@code rows} (each with {@code schema}'s fields in order), its columns named {@code names}.
   *
   * @throws IllegalArgumentException for a column of a type memwall does not copy
   */
  static Table of(Iterator<InternalRow> rows, StructType schema, List<String> names, BufferAllocator allocator) {
    StructField[] fields = schema.fields();
    List<ColumnType> types = new ArrayList<>(fields.length);
    for (StructField field : fields) {
      types.add(columnType(field));
    }
    try (TableBuilder builder = new TableBuilder(names, types, allocator)) {
      while (rows.hasNext()) {
        InternalRow row = rows.next();
        for (int i = 0; i < fields.length; i++) {
          RowBatches.appendValue(builder, row, i, fields[i].dataType());
        }
        builder.endRow();
      }
      return builder.build();
    }
  }
}
