package dev.memwall.core.operator;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Interns strings into dense ids so string grouping keys become fixed-width longs. Dictionary
 * columns are interned once per dictionary entry; plain string columns once per row (the slow
 * path: it decodes each value).
 *
 * <p>Thread safety: safe for concurrent use by the workers of one aggregation, which share one.
 */
public final class StringIds {
  private final ConcurrentHashMap<String, Integer> ids = new ConcurrentHashMap<>();
  private final List<byte[]> values = new ArrayList<>();

  int id(MemorySegment bytes, long offset, int length) {
    byte[] utf8 = new byte[length];
    MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, offset, utf8, 0, length);
    return ids.computeIfAbsent(new String(utf8, StandardCharsets.UTF_8), key -> {
      synchronized (values) {
        values.add(utf8);
        return values.size() - 1;
      }
    });
  }

  /** The number of ids handed out. */
  int size() {
    synchronized (values) {
      return values.size();
    }
  }

  /** The UTF-8 bytes of {@code id}; the caller must not change them. */
  byte[] value(int id) {
    synchronized (values) {
      return values.get(id);
    }
  }
}
