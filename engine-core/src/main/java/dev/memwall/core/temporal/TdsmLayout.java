package dev.memwall.core.temporal;

import dev.memwall.core.memory.EngineMemory;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link LayoutKind#TDSM}: one sub-relation per attribute, clustered by entity, of (surrogate, time,
 * value) triples, a triple only when the attribute's value changes (the first version writes one in
 * every sub-relation). An attribute's history reads that attribute's triples alone; a history joins
 * all the sub-relations on surrogate and time, the merge join of the paper's Figure 4 over k inputs
 * (an attribute whose next triple is later keeps its value); a snapshot searches each sub-relation.
 */
final class TdsmLayout extends AbstractTemporalLayout {
  private static final int TRIPLE = 3;
  /** {@code triples[a][e]}: the triples of attribute a of entity e. */
  private final long[][][] triples;
  /** {@code counts[a][e]}: how many. */
  private final int[][] counts;

  TdsmLayout(EngineMemory memory, int attributes) {
    super(memory, attributes);
    this.triples = new long[attributes][0][];
    this.counts = new int[attributes][0];
    charge.reserve(16L * attributes); // the per-attribute references of triples and counts
  }

  @Override
  public LayoutKind kind() {
    return LayoutKind.TDSM;
  }

  @Override
  long current(int entity, int attribute) {
    return triples[attribute][entity][(counts[attribute][entity] - 1) * TRIPLE + 2];
  }

  @Override
  void record(int entity, boolean created, long surrogate, long time, long[] values) {
    boolean[] changed = new boolean[attributes];
    for (int a = 0; a < attributes; a++) {
      changed[a] = created || current(entity, a) != values[a];
      if (created) {
        triples[a] = charge.grow(triples[a], entity + 1);
        counts[a] = charge.grow(counts[a], entity + 1);
        if (triples[a][entity] == null) { // else kept from an append the budget refused
          triples[a][entity] = new long[0];
        }
      }
      if (changed[a]) {
        triples[a][entity] = charge.grow(triples[a][entity], (counts[a][entity] + 1) * TRIPLE);
      }
    }
    for (int a = 0; a < attributes; a++) {
      if (changed[a]) {
        long[] own = triples[a][entity];
        int at = counts[a][entity] * TRIPLE;
        own[at] = surrogate;
        own[at + 1] = time;
        own[at + 2] = values[a];
        counts[a][entity]++;
      }
    }
  }

  @Override
  List<Version> historyOf(int entity) {
    int[] next = new int[attributes];
    long[] state = new long[attributes];
    List<Version> versions = new ArrayList<>();
    while (true) {
      long time = Long.MAX_VALUE;
      boolean any = false;
      for (int a = 0; a < attributes; a++) {
        if (next[a] < counts[a][entity]) {
          long[] own = triples[a][entity];
          int at = next[a] * TRIPLE;
          traffic.read(own, at, at + 2);
          if (!any || own[at + 1] < time) {
            time = own[at + 1];
          }
          any = true;
        }
      }
      if (!any) {
        return versions;
      }
      for (int a = 0; a < attributes; a++) {
        long[] own = triples[a][entity];
        if (next[a] < counts[a][entity] && own[next[a] * TRIPLE + 1] == time) {
          state[a] = own[next[a] * TRIPLE + 2];
          next[a]++;
        }
      }
      versions.add(new Version(time, state.clone()));
    }
  }

  @Override
  List<ValidValue> attributeHistoryOf(int entity, int attribute) {
    long[] own = triples[attribute][entity];
    int count = counts[attribute][entity];
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
      long[] own = triples[a][entity];
      int i = lastNotAfter(j -> {
        traffic.read(own, j * TRIPLE + 1, j * TRIPLE + 1);
        return own[j * TRIPLE + 1];
      }, counts[a][entity], time);
      if (i < 0) {
        return false; // every attribute has a triple at the entity's creation: not alive yet
      }
      traffic.read(own, i * TRIPLE + 2, i * TRIPLE + 2);
      values[offset + a] = own[i * TRIPLE + 2];
    }
    return true;
  }
}
