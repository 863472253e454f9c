package dev.memwall.core.vector;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarCharVector;

/** Utf8 vectors of given strings, for tests; the caller closes them. */
public final class StringVectors {
  private StringVectors() {}

  /** A Utf8 vector holding {@code values} in order, a null element as a null row. */
  public static VarCharVector of(String name, List<String> values, BufferAllocator allocator) {
    VarCharVector vector = new VarCharVector(name, allocator);
    vector.allocateNew(values.size());
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) == null) {
        vector.setNull(i);
      } else {
        vector.setSafe(i, values.get(i).getBytes(StandardCharsets.UTF_8));
      }
    }
    vector.setValueCount(values.size());
    return vector;
  }
}
