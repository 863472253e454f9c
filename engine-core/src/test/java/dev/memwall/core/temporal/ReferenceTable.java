package dev.memwall.core.temporal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The simplest temporal table: per surrogate, in first-append order, the list of its versions, and
 * the time of its last append. The layouts, in memory or in a page file, must answer every query as
 * this does.
 */
public final class ReferenceTable {
  private final int attributes;
  private final Map<Long, List<Version>> versions = new LinkedHashMap<>();
  private final Map<Long, Long> lastTimes = new LinkedHashMap<>();

  public ReferenceTable(int attributes) {
    this.attributes = attributes;
  }

  /** Whether an append at {@code time} is accepted (later than the entity's last, not Long.MAX_VALUE). */
  public boolean accepts(long surrogate, long time) {
    Long last = lastTimes.get(surrogate);
    return time != Long.MAX_VALUE && (last == null || time > last);
  }

  /** Whether a refused append is refused for its order (not for Long.MAX_VALUE). */
  public boolean outOfOrder(long surrogate, long time) {
    return time != Long.MAX_VALUE && !accepts(surrogate, time);
  }

  public void append(long surrogate, long time, long[] values) {
    List<Version> list = versions.computeIfAbsent(surrogate, s -> new ArrayList<>());
    if (list.isEmpty() || !Arrays.equals(list.getLast().values(), values)) {
      list.add(new Version(time, values.clone()));
    }
    lastTimes.put(surrogate, time);
  }

  public Long lastTime(long surrogate) {
    return lastTimes.get(surrogate);
  }

  public List<Version> history(long surrogate) {
    return versions.getOrDefault(surrogate, List.of());
  }

  public List<ValidValue> attributeHistory(long surrogate, int attribute) {
    List<ValidValue> out = new ArrayList<>();
    List<Version> list = history(surrogate);
    for (int i = 0; i < list.size(); i++) {
      long value = list.get(i).values()[attribute];
      if (!out.isEmpty() && out.getLast().value() == value) {
        continue;
      }
      if (!out.isEmpty()) {
        ValidValue open = out.removeLast();
        out.add(new ValidValue(open.value(), open.from(), list.get(i).time()));
      }
      out.add(new ValidValue(value, list.get(i).time(), ValidValue.OPEN));
    }
    return out;
  }

  /** Surrogates alive at {@code time} in first-append order, and their values row by row. */
  public Snapshot snapshot(long time) {
    List<Long> alive = new ArrayList<>();
    List<long[]> rows = new ArrayList<>();
    for (Map.Entry<Long, List<Version>> e : versions.entrySet()) {
      long[] state = null;
      for (Version v : e.getValue()) {
        if (v.time() <= time) {
          state = v.values();
        }
      }
      if (state != null) {
        alive.add(e.getKey());
        rows.add(state);
      }
    }
    long[] values = new long[rows.size() * attributes];
    for (int r = 0; r < rows.size(); r++) {
      System.arraycopy(rows.get(r), 0, values, r * attributes, attributes);
    }
    return new Snapshot(time, attributes, alive.stream().mapToLong(Long::longValue).toArray(), values);
  }

  /** Every version time of every entity. */
  public List<Long> times() {
    return versions.values().stream().flatMap(List::stream).map(Version::time).toList();
  }
}
