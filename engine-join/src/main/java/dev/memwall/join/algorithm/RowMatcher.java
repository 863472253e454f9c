package dev.memwall.join.algorithm;

import dev.memwall.join.common.JoinType;

/**
 * The per-left-row match logic every algorithm shares, so that the join types mean exactly the same
 * in each: a right row whose hash equals the left row's is {@linkplain #offer offered}, confirmed on
 * the key columns (unless hashes are exact), emitted as a pair by inner and left outer joins, and for
 * semi and anti joins the first match settles the row; {@link #finish} then emits what the left row
 * contributes besides its pairs (its semi row, or its unmatched outer or anti row).
 *
 * <pre>{@code
 * for (int e = head; e != 0 && !(hashOf(e) == h && matcher.offer(leftRow, rowOf(e))); e = next(e)) {}
 * matcher.finish(leftRow);
 * }</pre>
 *
 * <p>Hot path: small final methods on a final class that the JIT inlines into the probe loops.
 * Thread safety: one instance per thread and output (it holds the current left row's state).
 */
public final class RowMatcher {
  private final JoinInput input;
  private final JoinOutput out;
  private final JoinType type;
  private final boolean exact;
  private final boolean pairs;
  private final boolean firstSuffices;
  private boolean matched;

  /** A matcher for {@code input}'s join type that reports to {@code out}. */
  public RowMatcher(JoinInput input, JoinOutput out) {
    this.input = input;
    this.out = out;
    this.type = input.type();
    this.exact = input.exact();
    this.pairs = input.emitsPairs();
    this.firstSuffices = input.firstMatchSuffices();
  }

  /**
   * Offers a right row whose hash equals the current left row's; returns whether the left row is
   * settled, so that the caller stops looking for more candidates.
   */
  public boolean offer(int leftRow, int rightRow) {
    if (!exact && !input.confirm(leftRow, rightRow)) {
      return false;
    }
    matched = true;
    if (pairs) {
      out.emit(leftRow, rightRow);
    }
    return firstSuffices;
  }

  /** Ends the current left row: emits its semi, outer or anti row as its type asks, and resets. */
  public void finish(int leftRow) {
    JoinInput.finishRow(type, out, leftRow, matched);
    matched = false;
  }
}
