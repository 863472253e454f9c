package dev.memwall.core.temporal;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link LayoutKind#TDSM}: one sub-relation per attribute (the store's part of that number),
 * clustered by entity, of (surrogate, time, value) triples, a triple only when the attribute's value changes (the first version writes one in
 * every sub-relation). An attribute's history reads that attribute's triples alone; a history joins
 * all the sub-relations on surrogate and time, the merge join of the paper's Figure 4 over k inputs
 * (an attribute whose next triple is later keeps its value); a snapshot searches each sub-relation.
 */
final class TdsmLayout extends AbstractTemporalLayout {
  private static final int TRIPLE = 3;

  TdsmLayout(TemporalStore store, int attributes) {
    super(store, attributes);
  }

  /** Triples of attribute {@code a} of {@code entity}. */
  private int count(int a, int entity) {
    return store.length(a, entity) / TRIPLE;
  }

  @Override
  public LayoutKind kind() {
    return LayoutKind.TDSM;
  }

  @Override
  long current(int entity, int attribute) {
    return store.segment(attribute, entity)[store.length(attribute, entity) - TRIPLE + 2];
  }

  @Override
  void record(int entity, boolean created, long surrogate, long time, long[] values) {
    long[][] own = new long[attributes][];
    for (int a = 0; a < attributes; a++) {
      if (created || current(entity, a) != values[a]) {
        own[a] = store.room(a, entity, (created ? 0 : store.length(a, entity)) + TRIPLE);
      }
    }
    for (int a = 0; a < attributes; a++) {
      if (own[a] != null) {
        int at = created ? 0 : store.length(a, entity);
        own[a][at] = surrogate;
        own[a][at + 1] = time;
        own[a][at + 2] = values[a];
        store.store(a, entity, own[a], at + TRIPLE);
      }
    }
  }

  @Override
  List<Version> historyOf(int entity) {
    long[][] own = new long[attributes][];
    int[] counts = new int[attributes];
    for (int a = 0; a < attributes; a++) {
      own[a] = store.segment(a, entity);
      counts[a] = count(a, entity);
    }
    int[] next = new int[attributes];
    long[] state = new long[attributes];
    List<Version> versions = new ArrayList<>();
    while (true) {
      long time = Long.MAX_VALUE;
      boolean any = false;
      for (int a = 0; a < attributes; a++) {
        if (next[a] < counts[a]) {
          int at = next[a] * TRIPLE;
          traffic.read(own[a], at, at + 2);
          if (!any || own[a][at + 1] < time) {
            time = own[a][at + 1];
          }
          any = true;
        }
      }
      if (!any) {
        return versions;
      }
      for (int a = 0; a < attributes; a++) {
        if (next[a] < counts[a] && own[a][next[a] * TRIPLE + 1] == time) {
          state[a] = own[a][next[a] * TRIPLE + 2];
          next[a]++;
        }
      }
      versions.add(new Version(time, state.clone()));
    }
  }

  @Override
  List<ValidValue> attributeHistoryOf(int entity, int attribute) {
    long[] own = store.segment(attribute, entity);
    int count = count(attribute, entity);
    List<ValidValue> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int at = i * TRIPLE;
      traffic.read(own, at, at + 2); // the next triple's time, the end of this value, is read with it
      long to = i + 1 < count ? own[at + TRIPLE + 1] : ValidValue.OPEN;
      out.add(new ValidValue(own[at + 2], own[at + 1], to));
    }
    return out;
  }

  @Override
  boolean stateAt(int entity, long time, long[] values, int offset) {
    for (int a = 0; a < attributes; a++) {
      long[] own = store.segment(a, entity);
      int i = lastNotAfter(j -> {
        traffic.read(own, j * TRIPLE + 1, j * TRIPLE + 1);
        return own[j * TRIPLE + 1];
      }, count(a, entity), time);
      if (i < 0) {
        return false; // every attribute has a triple at the entity's creation: not alive yet
      }
      traffic.read(own, i * TRIPLE + 2, i * TRIPLE + 2);
      values[offset + a] = own[i * TRIPLE + 2];
    }
    return true;
  }
}
