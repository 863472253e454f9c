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
  /**
   * The entry at position {@code selector} (modulo the size) in key order, as {key, row id}: a
   * present entry for a delete. The model must not be empty.
   */
  public long[] pick(int selector) {
    long index = selector % size;
    for (Map.Entry<Long, List<Long>> e : map.entrySet()) {
      if (index < e.getValue().size()) {
        return new long[] {e.getKey(), e.getValue().get((int) index)};
      }
      index -= e.getValue().size();
    }
    throw new IllegalStateException("selector " + selector + " beyond " + size + " entries");
  }

  /** The key as a tree of {@code type} sees it: int32 trees get the low 32 bits (keeping the int limits). */
  public static long fit(KeyType type, long key) {
    return type == KeyType.INT32 ? (int) key : key;
  }

  /** The row ids {@code ids} holds, in order. */
  public static List<Long> toList(RowIds ids) {
    List<Long> list = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      list.add(ids.get(i));
    }
    return list;
  }
}
