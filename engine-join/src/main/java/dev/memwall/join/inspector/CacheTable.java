package dev.memwall.join.inspector;

import dev.memwall.join.common.JoinType;
import dev.memwall.join.algorithm.JoinInput;
import dev.memwall.join.algorithm.JoinOutput;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The cache-resident hash table of one build sub-partition, and the probe of one tuple against it
 * (seed 002, section 5.5.2, Figure 5.9): the table holds only the build tuples' 4-byte hash codes
 * (read from the partition's slot area, so building it never touches a build tuple) in bucket
 * chains; a probe compares codes and visits the build tuple and the probe tuple (their keys) only
 * on a code match. Sized for one sub-partition ({@link InspectorSizing}: it and the build tuples fit
 * the effective cache), its arrays are small heap arrays reused for every sub-partition a worker
 * joins.
 *
 * <p>Records (both sides): {@code W}-byte tuples with the 64-bit key (the bijective mix of the join
 * key, or a hash of a wide key) at offset 0 and the row id at offset 8.
 *
 * <p>Thread safety: one worker thread each; the {@code matched} flags it sets are bytes written only
 * with 1, so workers may share them.
 */
final class CacheTable {
  static final ValueLayout.OfLong KEY = ValueLayout.JAVA_LONG;
  static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  static final long ROW_OFFSET = 8;

  private final JoinInput input;
  private final JoinOutput out;
  private final boolean exact;
  private final boolean pairs;
  private final boolean firstSuffices;
  private final MemorySegment matched;
  private final int recordBytes;
  private int[] heads = new int[16];
  private int[] next = new int[16];
  private int[] codes = new int[16];
  private int mask;
  private MemorySegment buildRecords;
  private long buildBase;

  CacheTable(JoinInput input, JoinOutput out, int recordBytes, MemorySegment matched) {
    this.input = input;
    this.out = out;
    this.exact = input.exact();
    this.pairs = input.emitsPairs();
    this.firstSuffices = input.firstMatchSuffices();
    this.matched = matched;
    this.recordBytes = recordBytes;
  }

  JoinOutput out() {
    return out;
  }

  /**
   * Builds the table over build tuples {@code [from, from + n)} of {@code records}, whose hash codes
   * are {@code codes[from ...]}.
   */
  void build(MemorySegment records, MemorySegment codeSlots, long from, int n) {
    buildRecords = records;
    buildBase = from;
    int size = Integer.highestOneBit(Math.max(1, n) * 2 - 1);
    if (heads.length < size) {
      heads = new int[size];
    }
    if (next.length < n) {
      next = new int[Math.max(n, next.length * 2)];
      codes = new int[next.length];
    }
    mask = size - 1;
    Arrays.fill(heads, 0, size, -1);
    for (int i = 0; i < n; i++) {
      int code = codeSlots.getAtIndex(INT, from + i);
      int bucket = code & mask;
      codes[i] = code;
      next[i] = heads[bucket];
      heads[bucket] = i;
    }
  }

  /**
   * Probes with the tuple at {@code position} of {@code probeRecords} (hash code {@code code}),
   * emitting its pairs and flagging {@code matched[flag]} when it matched.
   */
  void probe(int code, MemorySegment probeRecords, long position, long flag) {
    long key = 0;
    int row = 0;
    boolean loaded = false;
    for (int j = heads[code & mask]; j >= 0; j = next[j]) {
      if (codes[j] != code) {
        continue;
      }
      if (!loaded) { // the probe tuple is visited only on a hash hit
        long at = position * recordBytes;
        key = probeRecords.get(KEY, at);
        row = probeRecords.get(INT, at + ROW_OFFSET);
        loaded = true;
      }
      long b = (buildBase + j) * recordBytes;
      if (buildRecords.get(KEY, b) != key) {
        continue;
      }
      int buildRow = buildRecords.get(INT, b + ROW_OFFSET);
      if (!exact && !input.confirm(row, buildRow)) {
        continue;
      }
      if (pairs) {
        out.emit(row, buildRow);
      }
      if (matched != null) {
        matched.set(ValueLayout.JAVA_BYTE, flag, (byte) 1);
        if (firstSuffices) {
          return;
        }
      }
    }
  }

  /** Emits what the probe tuple at {@code position} contributes besides its pairs. */
  static void finish(JoinType type, JoinOutput out, MemorySegment probeRecords, int recordBytes, long position,
      boolean wasMatched) {
    JoinInput.finishRow(type, out, probeRecords.get(INT, position * recordBytes + ROW_OFFSET), wasMatched);
  }
}
