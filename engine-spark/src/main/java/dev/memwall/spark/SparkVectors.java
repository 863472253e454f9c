package dev.memwall.spark;

import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.DecimalColumn;
import dev.memwall.core.vector.DictionaryColumn;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * Spark column vectors over memwall columns, none of which copies the column: Spark's own
 * {@link ArrowColumnVector} for the types whose Arrow form Spark reads as memwall means them (Int32,
 * Int64, Float64, Date(DAY), Utf8, Decimal128), {@link ScaledDecimalVector} for memwall's scaled-int64
 * decimals, {@link DictionaryStringVector} for dictionary-encoded strings. The vectors' types are the
 * ones {@link SparkTypes} declares.
 *
 * <p>Keeps one {@link DictionaryStrings} per dictionary, so a dictionary's values are decoded once per
 * file rather than once per batch. Ownership: the vectors view the columns' buffers, which stay the
 * table's. Thread safety: none; one partition reader uses it.
 */
final class SparkVectors {
  private final Map<FieldVector, DictionaryStrings> dictionaries = new IdentityHashMap<>();

  /** A Spark view of {@code column}. */
  ColumnVector of(Column column) {
    return switch (column) {
      case DictionaryColumn encoded -> new DictionaryStringVector(encoded, dictionaries.computeIfAbsent(
          encoded.dictionary().arrow(), vector -> new DictionaryStrings(encoded.dictionary())));
      case DecimalColumn scaled -> new ScaledDecimalVector(scaled);
      default -> new ArrowColumnVector(column.arrow());
    };
  }
}
