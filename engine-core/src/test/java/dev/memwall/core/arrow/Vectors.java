package dev.memwall.core.arrow;

import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;

/** Test helpers filling Arrow vectors by hand (null: a null row); each sets the vector's value count. */
final class Vectors {
  private Vectors() {}

  /** A string dictionary of {@code values} (null: a null entry), its vector in {@code allocator}. */
  static Dictionary dictionary(BufferAllocator allocator, DictionaryEncoding encoding, String... values) {
    VarCharVector vector = new VarCharVector("dictionary-" + encoding.getId(), allocator);
    vector.allocateNew();
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        vector.setNull(i);
      } else {
        vector.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
      }
    }
    vector.setValueCount(values.length);
    return new Dictionary(vector, encoding);
  }

  /** Codes into an allocated 8, 16 or 32 bit code vector. */
  static void codes(FieldVector vector, Integer... codes) {
    for (int i = 0; i < codes.length; i++) {
      if (codes[i] == null) {
        ((BaseFixedWidthVector) vector).setNull(i);
      } else {
        ((BaseIntVector) vector).setWithPossibleTruncate(i, codes[i]);
      }
    }
    vector.setValueCount(codes.length);
  }

  /**
   * Strings into an allocated Utf8 vector whose offsets do not start at 0: {@code skipped} takes
   * the first bytes of the data buffer and no row (as in a slice another library wrote).
   */
  static void stringsFromOffset(FieldVector vector, String skipped, String... values) {
    VarCharVector strings = (VarCharVector) vector;
    strings.setSafe(0, skipped.getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < values.length; i++) {
      strings.setSafe(i + 1, values[i] == null ? new byte[0] : values[i].getBytes(StandardCharsets.UTF_8));
    }
    strings.setValueCount(values.length + 1);
    for (int i = 0; i <= values.length; i++) {
      int next = strings.getOffsetBuffer().getInt((long) (i + 1) * Integer.BYTES);
      strings.getOffsetBuffer().setInt((long) i * Integer.BYTES, next);
    }
    for (int i = 0; i < values.length; i++) {
      BitVectorHelper.setValidityBit(strings.getValidityBuffer(), i, values[i] == null ? 0 : 1);
    }
    BitVectorHelper.setValidityBit(strings.getValidityBuffer(), values.length, 0);
    strings.setValueCount(values.length);
  }

  /** Days since the epoch into an allocated date vector. */
  static void days(FieldVector vector, Integer... days) {
    DateDayVector dates = (DateDayVector) vector;
    for (int i = 0; i < days.length; i++) {
      if (days[i] == null) {
        dates.setNull(i);
      } else {
        dates.setSafe(i, days[i]);
      }
    }
    dates.setValueCount(days.length);
  }

  /** Doubles into an allocated double vector. */
  static void doubles(FieldVector vector, Double... values) {
    Float8Vector doubles = (Float8Vector) vector;
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        doubles.setNull(i);
      } else {
        doubles.setSafe(i, values[i]);
      }
    }
    doubles.setValueCount(values.length);
  }
}
