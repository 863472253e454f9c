package dev.memwall.join.algorithm;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.keys.KeyColumns;

/**
 * What every algorithm joins: the validated key columns of the left (probe) and right (build)
 * inputs, the join type, and the memory to charge.
 *
 * <p>Also the per-left-row result logic all algorithms share ({@link #finishRow}), so the join types
 * mean exactly the same in each. Thread safety: immutable.
 *
 * @param left the probe side; its rows are preserved by outer, semi and anti joins
 * @param right the build side
 */
public record JoinInput(KeyColumns left, KeyColumns right, JoinType type, EngineMemory memory) {
  /** Whether equal hashes imply equal keys (no confirmation on the key columns needed). */
  public boolean exact() {
    return left.shape().exact();
  }

  /** Whether hash-equal rows really have equal keys: always for exact keys, else checked on the columns. */
  public boolean confirm(int leftRow, int rightRow) {
    return left.sameKey(leftRow, right, rightRow);
  }

  /**
   * A bound on the left rows with a null key that the join reports as unmatched (outer and anti
   * joins keep them aside while joining), 0 for the join types that drop them.
   */
  public long leftNullBound() {
    return type.reportsUnmatched() ? left.nullBound() : 0;
  }

  /** Whether matching pairs are emitted (inner and left outer joins). */
  public boolean emitsPairs() {
    return type == JoinType.INNER || type == JoinType.LEFT_OUTER;
  }

  /** Whether the first match settles a left row (semi and anti joins). */
  public boolean firstMatchSuffices() {
    return type == JoinType.SEMI || type == JoinType.ANTI;
  }

  /** Emits what a left row contributes besides its pairs, given whether it matched. */
  public static void finishRow(JoinType type, JoinOutput out, int leftRow, boolean matched) {
    if (matched ? type == JoinType.SEMI : type.reportsUnmatched()) {
      out.emit(leftRow, JoinIndex.NO_ROW);
    }
  }
}
