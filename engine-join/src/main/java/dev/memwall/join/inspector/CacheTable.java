package dev.memwall.join.inspector;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.join.common.JoinMemoryException;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.algorithm.JoinInput;
import dev.memwall.join.algorithm.JoinOutput;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Locale;

/**
 * The cache-resident hash table of one build sub-partition, and the probe of one tuple against it
 * (seed 002, section 5.5.2, Figure 5.9): the table holds only the build tuples' 4-byte hash codes
 * (read from the partition's slot area, so building it never touches a build tuple) in bucket
 * chains; a probe compares codes and visits the build tuple and the probe tuple (their keys) only
 * on a code match. Sized for one sub-partition ({@link InspectorSizing}: it and the build tuples fit
 * the effective cache), its arrays are small heap arrays reused for every sub-partition a worker
 * joins. Skewed keys defeat the sizing: equal keys share a sub-partition however it is split, so the
 * arrays can grow to a whole side. They are therefore charged to the join's budget as they grow
 * ({@link EngineMemory#reserveHeap}), a growth the budget refuses is a {@link JoinMemoryException}
 * naming the sub-partition, and {@link #close} returns the charge.
 *
 * <p>Records (both sides): {@code W}-byte tuples with the 64-bit key (the bijective mix of the join
 * key, or a hash of a wide key) at offset 0 and the row id at offset 8.
 *
 * <p>Thread safety: one worker thread each; the {@code matched} flags it sets are bytes written only
 * with 1, so workers may share them.
 */
final class CacheTable implements AutoCloseable {
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
  private final EngineMemory memory;
  /** Heap bytes of the arrays charged to {@link #memory}'s budget. */
  private long chargedBytes;
  private int[] heads = new int[16];
  private int[] next = new int[16];
  private int[] codes = new int[16];
  private int mask;
  private MemorySegment buildRecords;
  private long buildBase;

  CacheTable(JoinInput input, JoinOutput out, int recordBytes, MemorySegment matched) {
    this.memory = input.memory();
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
    int headsLength = Math.max(heads.length, size);
    int nextLength = next.length < n ? Math.max(n, next.length * 2) : next.length;
    charge((long) Integer.BYTES * (headsLength + 2L * nextLength), n);
    if (heads.length < size) {
      heads = new int[size];
    }
    if (next.length < n) {
      next = new int[nextLength];
      codes = new int[nextLength];
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

  /** Charges the arrays' growth to {@code bytes} in all, for a sub-partition of {@code tuples} build tuples. */
  private void charge(long bytes, int tuples) {
    if (bytes <= chargedBytes) {
      return;
    }
    try {
      memory.reserveHeap(bytes - chargedBytes);
    } catch (BudgetExceededException e) {
      throw new JoinMemoryException(String.format(Locale.ROOT, "the inspector join's cache table for a "
          + "sub-partition of %d build tuples (skewed keys) needs %d bytes of heap; %s", tuples, bytes, e.getMessage()),
          bytes, e);
    }
    chargedBytes = bytes;
  }

  /** Returns the arrays' charge to the budget; the table is not used afterwards. */
  @Override
  public void close() {
    memory.releaseHeap(chargedBytes);
    chargedBytes = 0;
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
