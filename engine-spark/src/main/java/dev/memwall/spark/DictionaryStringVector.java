package dev.memwall.spark;

import dev.memwall.core.vector.DictionaryColumn;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A dictionary-encoded memwall string column (1, 2 or 4 byte codes into a string dictionary) as a
 * Spark {@code StringType} column: each row's code is read in place and decoded through the
 * dictionary's {@link DictionaryStrings}, so the codes are never copied and each distinct value is
 * decoded once. Spark's {@code ArrowColumnVector} has no dictionary support (it would read the codes
 * as numbers).
 *
 * <p>Ownership: a view; the codes belong to the memwall table, which must stay open while Spark reads
 * the batch. Thread safety: none beyond {@link DictionaryStrings}': one task thread.
 */
final class DictionaryStringVector extends ViewVector {
  private final DictionaryColumn column;
  private final DictionaryStrings strings;

  DictionaryStringVector(DictionaryColumn column, DictionaryStrings strings) {
    super(column, DataTypes.StringType);
    this.column = column;
    this.strings = strings;
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    return column.isNull(rowId) ? null : strings.get(column.code(rowId), name());
  }

  @Override
  public byte[] getBinary(int rowId) {
    UTF8String value = getUTF8String(rowId);
    return value == null ? null : value.getBytes();
  }
}
