package dev.memwall.core.temporal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@link LayoutKind#NSM}: per entity, its versions as rows of (surrogate, time, every attribute)
 * in one segment, so a version repeats every value it did not change. A history reads whole rows; an
 * attribute's history reads each row's time and value, and the cache lines around them hold the
 * attributes it does not want; a snapshot searches each entity's times and reads one row.
 */
final class NsmLayout extends AbstractTemporalLayout {
  private final int stride;

  NsmLayout(TemporalStore store, int attributes) {
    super(store, attributes);
    this.stride = 2 + attributes;
  }

  @Override
  public LayoutKind kind() {
    return LayoutKind.NSM;
  }

  @Override
  long current(int entity, int attribute) {
    return store.segment(0, entity)[store.length(0, entity) - stride + 2 + attribute];
  }

  private int count(int entity) {
    return store.length(0, entity) / stride;
  }

  @Override
  void record(int entity, boolean created, long surrogate, long time, long[] values) {
    int count = created ? 0 : count(entity);
    int length = Math.multiplyExact(count + 1, stride);
    long[] own = store.room(0, entity, length);
    int at = count * stride;
    own[at] = surrogate;
    own[at + 1] = time;
    System.arraycopy(values, 0, own, at + 2, attributes);
    store.store(0, entity, own, length);
  }

  @Override
  List<Version> historyOf(int entity) {
    long[] own = store.segment(0, entity);
    int count = count(entity);
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
    long[] own = store.segment(0, entity);
    int count = count(entity);
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
    long[] own = store.segment(0, entity);
    int row = lastNotAfter(i -> {
      traffic.read(own, i * stride + 1, i * stride + 1);
      return own[i * stride + 1];
    }, count(entity), time);
    if (row < 0) {
      return false;
    }
    traffic.read(own, row * stride + 2, row * stride + stride - 1);
    System.arraycopy(own, row * stride + 2, values, offset, attributes);
    return true;
  }
}
