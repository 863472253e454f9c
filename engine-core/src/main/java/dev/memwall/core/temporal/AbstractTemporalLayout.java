package dev.memwall.core.temporal;

import dev.memwall.core.memory.EngineMemory;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What every layout shares: the entity directory, the heap charge, the traffic counter, the checks
 * of an append and of a closed table, and the rule that an append changing nothing records nothing.
 * A layout stores the versions and answers the queries for an entity index.
 */
abstract class AbstractTemporalLayout implements TemporalLayout {
  final int attributes;
  final HeapCharge charge;
  final EntityDirectory directory;
  final Traffic traffic = new Traffic();
  private boolean closed;

  AbstractTemporalLayout(EngineMemory memory, int attributes) {
    this.attributes = attributes;
    this.charge = new HeapCharge(Objects.requireNonNull(memory, "memory"));
    this.directory = new EntityDirectory(charge);
  }

  /** The current value of {@code attribute} of a stored entity. */
  abstract long current(int entity, int attribute);

  /**
   * Stores a version of {@code entity} ({@code created}: its first, at the index the directory is
   * about to give it). Must grow every array it needs before writing any, so that a refusal by the
   * budget leaves the stored versions as they were.
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
    return directory.size();
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
    int entity = directory.find(surrogate);
    if (entity < 0) {
      int index = directory.prepare();
      record(index, true, surrogate, time, values.clone());
      directory.commit(surrogate, time);
      return;
    }
    long last = directory.lastTime(entity);
    if (time <= last) {
      throw new TemporalOrderException(surrogate, last, time);
    }
    for (int a = 0; a < attributes; a++) {
      if (current(entity, a) != values[a]) {
        record(entity, false, surrogate, time, values.clone());
        break;
      }
    }
    directory.setLastTime(entity, time);
  }

  @Override
  public final List<Version> history(long surrogate) {
    checkOpen();
    traffic.reset();
    int entity = directory.find(surrogate);
    return entity < 0 ? List.of() : historyOf(entity);
  }

  @Override
  public final List<ValidValue> attributeHistory(long surrogate, int attribute) {
    checkOpen();
    Objects.checkIndex(attribute, attributes);
    traffic.reset();
    int entity = directory.find(surrogate);
    return entity < 0 ? List.of() : attributeHistoryOf(entity, attribute);
  }

  @Override
  public final Snapshot snapshot(long time) {
    checkOpen();
    traffic.reset();
    int n = directory.size();
    long[] surrogates = new long[n];
    long[] values = new long[n * attributes];
    int rows = 0;
    for (int e = 0; e < n; e++) {
      if (stateAt(e, time, values, rows * attributes)) {
        surrogates[rows++] = directory.surrogate(e);
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
    return charge.charged();
  }

  @Override
  public final void close() {
    if (!closed) {
      closed = true;
      charge.releaseAll();
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
