package dev.memwall.spark;

import dev.memwall.core.vector.VarCharColumn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The values of one string dictionary as Spark strings, decoded once per entry on first use and then
 * shared by every row (of every batch) that holds its code. Each entry is copied to the heap: a
 * dictionary is small next to the rows that point into it, and a heap string stays valid whatever
 * Spark keeps after the file is unmapped.
 *
 * <p>Bad input: a code outside the dictionary throws {@link IndexOutOfBoundsException} naming the
 * column. Thread safety: none; one partition reader (one task thread) uses it.
 */
final class DictionaryStrings {
  private final VarCharColumn values;
  private final UTF8String[] decoded;

  DictionaryStrings(VarCharColumn values) {
    this.values = values;
    this.decoded = new UTF8String[values.length()];
  }

  /** The value of {@code code}. */
  UTF8String get(int code, String column) {
    if (code < 0 || code >= decoded.length) {
      throw new IndexOutOfBoundsException("column '" + column + "' holds dictionary code " + code
          + " but its dictionary has " + decoded.length + " values");
    }
    UTF8String value = decoded[code];
    if (value == null) {
      byte[] bytes = new byte[values.byteLength(code)];
      MemorySegment.copy(values.bytes(), ValueLayout.JAVA_BYTE, values.offset(code), bytes, 0, bytes.length);
      value = UTF8String.fromBytes(bytes);
      decoded[code] = value;
    }
    return value;
  }
}
