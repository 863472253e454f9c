package dev.memwall.core.operator;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.vector.DictionaryColumn;
import org.apache.arrow.vector.FieldVector;

/**
 * The fast path of {@link HashAggregator} for grouping on dictionary-encoded strings with a small
 * combined domain (TPC-H Q1's flags): the row's codes, combined, index a direct array of group
 * ids, so no hashing or key comparison happens per row. The array is rebuilt whenever the
 * dictionaries change (a new file) and is only used for chunks without null keys; the groups it
 * creates are the {@link GroupTable}'s, so both paths agree on every group id.
 *
 * <p>Thread safety: none; one per aggregation worker.
 */
final class DictionaryGroups {
  private static final int MAX_DOMAIN = 1 << 16;
  private final GroupKey[] keySources;
  private final GroupTable table;
  private final int[] columns;
  private final FieldVector[] dictionaries;
  private final int[] cardinalities;
  private final DictionaryColumn[] current;
  private final int[] combinedCodes = new int[Chunk.CAPACITY];
  private final int[] codes = new int[Chunk.CAPACITY];
  private int[] groupOfCode;
  private boolean eligible;

  DictionaryGroups(GroupKey[] keySources, GroupTable table) {
    this.keySources = keySources;
    this.table = table;
    boolean allStrings = keySources.length > 0;
    for (GroupKey source : keySources) {
      allStrings &= source instanceof GroupKey.Strings;
    }
    columns = allStrings ? new int[keySources.length] : null;
    for (int j = 0; allStrings && j < keySources.length; j++) {
      columns[j] = ((GroupKey.Strings) keySources[j]).columnIndex;
    }
    dictionaries = new FieldVector[keySources.length];
    cardinalities = new int[keySources.length];
    current = new DictionaryColumn[keySources.length];
  }

  /** Forgets every group id handed out: the table was cleared. */
  void clear() {
    java.util.Arrays.fill(dictionaries, null); // the next chunk rebuilds the codes' group ids
  }

  /** Fills {@code groupIds} for the listed rows and returns true, or returns false when not applicable. */
  boolean assign(Chunk chunk, int[] positions, int n, int[] groupIds) {
    if (columns == null || !prepare(chunk)) {
      return false;
    }
    int start = chunk.start();
    int[] combined = combinedCodes;
    if (chunk.readsWhole()) {
      // every row's codes, in sequential loops; only the listed rows' combinations are looked up below
      int count = chunk.count();
      current[0].readCodes(start, count, combined);
      for (int j = 1; j < current.length; j++) {
        current[j].readCodes(start, count, codes);
        int cardinality = cardinalities[j];
        for (int k = 0; k < count; k++) {
          combined[k] = combined[k] * cardinality + codes[k];
        }
      }
    } else {
      current[0].readCodes(start, positions, n, combined);
      for (int j = 1; j < current.length; j++) {
        current[j].readCodes(start, positions, n, codes);
        int cardinality = cardinalities[j];
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          combined[k] = combined[k] * cardinality + codes[k];
        }
      }
    }
    int[] groups = groupOfCode;
    for (int i = 0; i < n; i++) {
      int k = positions[i];
      int group = groups[combined[k]];
      groupIds[k] = group >= 0 ? group : firstGroupOf(combined[k], start + k);
    }
    return true;
  }

  /** Creates (or finds, after a dictionary change) the group of a combination seen for the first time. */
  private int firstGroupOf(int combinedCode, int row) {
    long[] tuple = new long[table.keyWidth()];
    for (int j = 0; j < current.length; j++) {
      tuple[j] = ((GroupKey.Strings) keySources[j]).idOf(current[j].dictionary(), current[j].code(row));
    }
    int group = table.findOrInsert(tuple);
    groupOfCode[combinedCode] = group;
    return group;
  }

  private boolean prepare(Chunk chunk) {
    boolean changed = false;
    for (int j = 0; j < columns.length; j++) {
      if (!(chunk.batch().column(columns[j]) instanceof DictionaryColumn codes) || codes.hasNulls()) {
        return false;
      }
      current[j] = codes;
      if (codes.dictionary().arrow() != dictionaries[j]) {
        dictionaries[j] = codes.dictionary().arrow();
        cardinalities[j] = codes.dictionary().length();
        changed = true;
      }
    }
    if (changed) {
      long domain = 1;
      for (int cardinality : cardinalities) {
        domain *= Math.max(1, cardinality);
      }
      eligible = domain <= MAX_DOMAIN;
      if (eligible) {
        groupOfCode = new int[(int) domain];
        java.util.Arrays.fill(groupOfCode, -1);
      }
    }
    return eligible;
  }
}
