package dev.memwall.core.temporal;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link LayoutKind#PSP}: one sub-page per entity, one segment, laid out as in the paper's Figure 6:
 * a header of the surrogate, the creation time, then per attribute the number v of its distinct
 * consecutive values and the offset z of its zone; then the zones, each the v - 1 times at which the
 * attribute changed (the creation time is stored once, in the header) followed by its v values.
 * Every value is stored once and its validity is implicit: from its change time (or creation) to
 * the next. An attribute's history reads one zone; a history reads one sub-page and merges its
 * zones' times; a snapshot searches each zone's times. An append that changes an attribute moves
 * the zones after it two longs up, the write cost the paper trades for these reads.
 */
final class PspLayout extends AbstractTemporalLayout {
  private static final int SURROGATE = 0;
  private static final int CREATED = 1;

  PspLayout(TemporalStore store, int attributes) {
    super(store, attributes);
  }

  @Override
  public LayoutKind kind() {
    return LayoutKind.PSP;
  }

  private int distinctAt(int attribute) {
    return 2 + 2 * attribute;
  }

  private int zoneAt(int attribute) {
    return 3 + 2 * attribute;
  }

  @Override
  long current(int entity, int attribute) {
    long[] page = store.segment(0, entity);
    int v = (int) page[distinctAt(attribute)];
    int z = (int) page[zoneAt(attribute)];
    return page[z + 2 * v - 2];
  }

  @Override
  void record(int entity, boolean created, long surrogate, long time, long[] values) {
    if (created) {
      int header = 2 + 2 * attributes;
      long[] page = store.room(0, entity, header + attributes);
      page[SURROGATE] = surrogate;
      page[CREATED] = time;
      for (int a = 0; a < attributes; a++) {
        page[distinctAt(a)] = 1;
        page[zoneAt(a)] = header + a;
        page[header + a] = values[a];
      }
      store.store(0, entity, page, header + attributes);
      return;
    }
    int changed = 0;
    for (int a = 0; a < attributes; a++) {
      if (current(entity, a) != values[a]) {
        changed++;
      }
    }
    int length = store.length(0, entity) + 2 * changed;
    long[] page = store.room(0, entity, length);
    // zones move up from the last to the first, each by two longs per changed zone before it and
    // (for a changed zone) its values by two more minus one for its new time
    int shift = 2 * changed;
    for (int a = attributes - 1; a >= 0; a--) {
      int v = (int) page[distinctAt(a)];
      int z = (int) page[zoneAt(a)];
      boolean grows = page[z + 2 * v - 2] != values[a];
      if (grows) {
        shift -= 2;
      }
      int nz = z + shift;
      if (grows) {
        System.arraycopy(page, z + v - 1, page, nz + v, v); // values
        System.arraycopy(page, z, page, nz, v - 1); // times
        page[nz + v - 1] = time;
        page[nz + 2 * v] = values[a];
        page[distinctAt(a)] = v + 1;
      } else if (shift > 0) {
        System.arraycopy(page, z, page, nz, 2 * v - 1);
      }
      page[zoneAt(a)] = nz;
    }
    store.store(0, entity, page, length);
  }

  @Override
  List<Version> historyOf(int entity) {
    long[] page = store.segment(0, entity);
    traffic.read(page, 0, 1 + 2 * attributes);
    int[] next = new int[attributes]; // index of the attribute's next change time, 0 .. v - 1
    long[] state = new long[attributes];
    for (int a = 0; a < attributes; a++) {
      int z = (int) page[zoneAt(a)];
      int v = (int) page[distinctAt(a)];
      traffic.read(page, z, z + 2 * v - 2);
      state[a] = page[z + v - 1];
    }
    List<Version> versions = new ArrayList<>();
    versions.add(new Version(page[CREATED], state.clone()));
    while (true) {
      long time = Long.MAX_VALUE;
      boolean any = false;
      for (int a = 0; a < attributes; a++) {
        int v = (int) page[distinctAt(a)];
        if (next[a] < v - 1) {
          long t = page[(int) page[zoneAt(a)] + next[a]];
          if (!any || t < time) {
            time = t;
          }
          any = true;
        }
      }
      if (!any) {
        return versions;
      }
      for (int a = 0; a < attributes; a++) {
        int v = (int) page[distinctAt(a)];
        int z = (int) page[zoneAt(a)];
        if (next[a] < v - 1 && page[z + next[a]] == time) {
          next[a]++;
          state[a] = page[z + v - 1 + next[a]];
        }
      }
      versions.add(new Version(time, state.clone()));
    }
  }

  @Override
  List<ValidValue> attributeHistoryOf(int entity, int attribute) {
    long[] page = store.segment(0, entity);
    traffic.read(page, CREATED, CREATED);
    traffic.read(page, distinctAt(attribute), zoneAt(attribute));
    int v = (int) page[distinctAt(attribute)];
    int z = (int) page[zoneAt(attribute)];
    traffic.read(page, z, z + 2 * v - 2);
    List<ValidValue> out = new ArrayList<>(v);
    for (int i = 0; i < v; i++) {
      long from = i == 0 ? page[CREATED] : page[z + i - 1];
      long to = i + 1 < v ? page[z + i] : ValidValue.OPEN;
      out.add(new ValidValue(page[z + v - 1 + i], from, to));
    }
    return out;
  }

  @Override
  boolean stateAt(int entity, long time, long[] values, int offset) {
    long[] page = store.segment(0, entity);
    traffic.read(page, CREATED, CREATED);
    if (page[CREATED] > time) {
      return false;
    }
    traffic.read(page, distinctAt(0), zoneAt(attributes - 1));
    for (int a = 0; a < attributes; a++) {
      int v = (int) page[distinctAt(a)];
      int z = (int) page[zoneAt(a)];
      int changes = lastNotAfter(j -> {
        traffic.read(page, z + j, z + j);
        return page[z + j];
      }, v - 1, time) + 1;
      traffic.read(page, z + v - 1 + changes, z + v - 1 + changes);
      values[offset + a] = page[z + v - 1 + changes];
    }
    return true;
  }
}
