package dev.memwall.core.temporal;

import dev.memwall.core.memory.EngineMemory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@link LayoutKind#NSM}: per entity, its versions as rows of (surrogate, time, every attribute)
 * in one array, so a version repeats every value it did not change. A history reads whole rows; an
 * attribute's history reads each row's time and value, and the cache lines around them hold the
 * attributes it does not want; a snapshot searches each entity's times and reads one row.
 */
final class NsmLayout extends AbstractTemporalLayout {
  private final int stride;
  private long[][] rows = new long[0][];
  private int[] counts = new int[0];

  NsmLayout(EngineMemory memory, int attributes) {
    super(memory, attributes);
    this.stride = 2 + attributes;
  }

  @Override
  public LayoutKind kind() {
    return LayoutKind.NSM;
  }

  @Override
  long current(int entity, int attribute) {
    return rows[entity][(counts[entity] - 1) * stride + 2 + attribute];
  }

  @Override
  void record(int entity, boolean created, long surrogate, long time, long[] values) {
    if (created) {
      rows = charge.grow(rows, entity + 1);
      counts = charge.grow(counts, entity + 1);
      rows[entity] = charge.grow(new long[0], stride);
    }
    int count = counts[entity];
    long[] own = charge.grow(rows[entity], Math.multiplyExact(count + 1, stride));
    rows[entity] = own;
    int at = count * stride;
    own[at] = surrogate;
    own[at + 1] = time;
    System.arraycopy(values, 0, own, at + 2, attributes);
    counts[entity] = count + 1;
  }

  @Override
  List<Version> historyOf(int entity) {
    long[] own = rows[entity];
    int count = counts[entity];
    List<Version> versions = new ArrayList<>(count);
    for (int r = 0; r < count; r++) {
      int at = r * stride;
      traffic.read(own, at, at + stride - 1);
      versions.add(new Version(own[at + 1], Arrays.copyOfRange(own, at + 2, at + stride)));
    }
    return versions;
  }

  @Override
  List<ValidValue> attributeHistoryOf(int entity, int attribute) {
    long[] own = rows[entity];
    int count = counts[entity];
    List<ValidValue> out = new ArrayList<>();
    long value = 0;
    long from = 0;
    for (int r = 0; r < count; r++) {
      int at = r * stride;
      traffic.read(own, at + 1, at + 2 + attribute);
      long v = own[at + 2 + attribute];
      if (r == 0) {
        value = v;
        from = own[at + 1];
      } else if (v != value) {
        out.add(new ValidValue(value, from, own[at + 1]));
        value = v;
        from = own[at + 1];
      }
    }
    out.add(new ValidValue(value, from, ValidValue.OPEN));
    return out;
  }

  @Override
  boolean stateAt(int entity, long time, long[] values, int offset) {
    long[] own = rows[entity];
    int row = lastNotAfter(i -> {
      traffic.read(own, i * stride + 1, i * stride + 1);
      return own[i * stride + 1];
    }, counts[entity], time);
    if (row < 0) {
      return false;
    }
    traffic.read(own, row * stride + 2, row * stride + stride - 1);
    System.arraycopy(own, row * stride + 2, values, offset, attributes);
    return true;
  }
}
