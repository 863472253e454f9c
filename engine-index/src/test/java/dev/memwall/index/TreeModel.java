package dev.memwall.index;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The reference every tree is checked against: a {@link TreeMap} from key to the row ids under it,
 * in the order they were added (bulkload order, then insertion order); deleting removes the first
 * occurrence of a row id.
 */
public final class TreeModel {
  private final TreeMap<Long, List<Long>> map = new TreeMap<>();
  private long size;

  public void insert(long key, long rowId) {
    map.computeIfAbsent(key, k -> new ArrayList<>()).add(rowId);
    size++;
  }

  public boolean delete(long key, long rowId) {
    List<Long> rows = map.get(key);
    if (rows == null || !rows.remove(rowId)) {
      return false;
    }
    if (rows.isEmpty()) {
      map.remove(key);
    }
    size--;
    return true;
  }

  public List<Long> rows(long key) {
    return map.getOrDefault(key, List.of());
  }

  public long size() {
    return size;
  }

  /** Row ids of the entries with {@code lo <= key <= hi}, in key order. */
  public List<Long> range(long lo, long hi) {
    List<Long> rows = new ArrayList<>();
    if (lo <= hi) {
      for (List<Long> r : map.subMap(lo, true, hi, true).values()) {
        rows.addAll(r);
      }
    }
    return rows;
  }

  /** Keys of the entries with {@code lo <= key <= hi}, each repeated once per row id. */
  public List<Long> rangeKeys(long lo, long hi) {
    List<Long> keys = new ArrayList<>();
    if (lo <= hi) {
      for (Map.Entry<Long, List<Long>> e : map.subMap(lo, true, hi, true).entrySet()) {
        for (int i = 0; i < e.getValue().size(); i++) {
          keys.add(e.getKey());
        }
      }
    }
    return keys;
  }

  public TreeMap<Long, List<Long>> map() {
    return map;
  }
}
