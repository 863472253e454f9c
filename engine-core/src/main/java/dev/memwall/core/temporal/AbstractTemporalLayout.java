package dev.memwall.core.temporal;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What every layout shares: the {@link TemporalStore} holding the entities and their segments, the
 * traffic counter, the checks of an append and of a closed table, and the rule that an append
 * changing nothing records nothing. A layout encodes the versions in its store's segments and
 * answers the queries for an entity index.
 */
abstract class AbstractTemporalLayout implements TemporalLayout {
  final int attributes;
  final TemporalStore store;
  final Traffic traffic = new Traffic();
  private boolean closed;

  AbstractTemporalLayout(TemporalStore store, int attributes) {
    this.attributes = attributes;
    this.store = Objects.requireNonNull(store, "store");
    if (store.parts() != kind().parts(attributes)) {
      throw new IllegalArgumentException("a " + kind() + " table of " + attributes + " attributes needs a store of "
          + kind().parts(attributes) + " parts, not " + store.parts());
    }
  }

  /** The current value of {@code attribute} of a stored entity. */
  abstract long current(int entity, int attribute);

  /**
   * Stores a version of {@code entity} ({@code created}: its first, at the index the store is about
   * to give it). Must ask the store for {@linkplain TemporalStore#room room} in every segment it
   * changes before writing any, so that a refusal leaves the stored versions as they were.
   */
  abstract void record(int entity, boolean created, long surrogate, long time, long[] values);

  abstract List<Version> historyOf(int entity);

  abstract List<ValidValue> attributeHistoryOf(int entity, int attribute);

  /**
   * Writes the values of {@code entity}'s version valid at {@code time} into {@code values} from
   * {@code offset} and returns true, or returns false if its first version is later.
   */
  abstract boolean stateAt(int entity, long time, long[] values, int offset);

  @Override
  public final int attributes() {
    return attributes;
  }

  @Override
  public final int entities() {
    return store.entities();
  }

  @Override
  public final void append(long surrogate, long time, long... values) {
    checkOpen();
    if (values.length != attributes) {
      throw new IllegalArgumentException("a version has " + attributes + " values, not " + values.length);
    }
    if (time == ValidValue.OPEN) {
      throw new IllegalArgumentException("Long.MAX_VALUE is the open end of validity, not a version time");
    }
    int entity = store.find(surrogate);
    if (entity < 0) {
      int index = store.prepare();
      record(index, true, surrogate, time, values.clone());
      store.commit(surrogate, time);
      return;
    }
    long last = store.lastTime(entity);
    if (time <= last) {
      throw new TemporalOrderException(surrogate, last, time);
    }
    for (int a = 0; a < attributes; a++) {
      if (current(entity, a) != values[a]) {
        record(entity, false, surrogate, time, values.clone());
        break;
      }
    }
    store.setLastTime(entity, time);
  }

  @Override
  public final List<Version> history(long surrogate) {
    checkOpen();
    traffic.reset();
    int entity = store.find(surrogate);
    return entity < 0 ? List.of() : historyOf(entity);
  }

  @Override
  public final List<ValidValue> attributeHistory(long surrogate, int attribute) {
    checkOpen();
    Objects.checkIndex(attribute, attributes);
    traffic.reset();
    int entity = store.find(surrogate);
    return entity < 0 ? List.of() : attributeHistoryOf(entity, attribute);
  }

  @Override
  public final Snapshot snapshot(long time) {
    checkOpen();
    traffic.reset();
    int n = store.entities();
    long[] surrogates = new long[n];
    long[] values = new long[n * attributes];
    int rows = 0;
    for (int e = 0; e < n; e++) {
      if (stateAt(e, time, values, rows * attributes)) {
        surrogates[rows++] = store.surrogate(e);
      }
    }
    return new Snapshot(time, attributes, Arrays.copyOf(surrogates, rows),
        Arrays.copyOf(values, rows * attributes));
  }

  @Override
  public final void countTraffic(boolean on) {
    traffic.enable(on);
  }

  @Override
  public final long lastQueryBytes() {
    return traffic.bytes();
  }

  @Override
  public final long chargedBytes() {
    return store.chargedBytes();
  }

  @Override
  public final void close() {
    if (!closed) {
      closed = true;
      store.close();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this " + kind() + " temporal layout is closed");
    }
  }

  /** Index of the last of {@code count} ascending times, read by {@code time(i)}, not after {@code t}; -1 if none. */
  static int lastNotAfter(TimeAt times, int count, long t) {
    int lo = 0;
    int hi = count - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (times.time(mid) <= t) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** The i-th time of an ascending sequence, reading (and counting) it. */
  @FunctionalInterface
  interface TimeAt {
    long time(int i);
  }
}
