package dev.memwall.core.expr;

/**
 * Splits a chunk's selection into the rows where a condition holds and the rest, and puts the
 * original selection back afterwards: the mechanics of CASE.
 */
final class CaseSplit {
  private final FilterKernel condition;
  private final Branch then;
  private final Branch otherwise;
  private final int[] trueRows = new int[Chunk.CAPACITY];
  private final int[] falseRows = new int[Chunk.CAPACITY];
  private int trueCount;
  private int falseCount;
  private final int[] original = new int[Chunk.CAPACITY];
  private int originalCount;

  /** A split for a CASE kernel: {@code then} takes the rows where {@code condition} holds, {@code otherwise} the rest. */
  CaseSplit(FilterKernel condition, Branch then, Branch otherwise) {
    this.condition = condition;
    this.then = then;
    this.otherwise = otherwise;
  }

  private void split(Chunk chunk) {
    originalCount = chunk.copySelection(original);
    condition.filter(chunk);
    trueCount = chunk.copySelection(trueRows);
    falseCount = 0;
    int t = 0;
    for (int i = 0; i < originalCount; i++) {
      int k = original[i];
      if (t < trueCount && trueRows[t] == k) {
        t++;
      } else {
        falseRows[falseCount++] = k;
      }
    }
  }

  /** One branch of a CASE kernel: evaluates itself on {@code chunk} and copies its values at {@code rows}. */
  interface Branch {
    void take(Chunk chunk, int[] rows, int n);
  }

  /**
   * Evaluates the condition, runs {@code then} with the chunk narrowed to the rows where it holds
   * and {@code otherwise} with the rest, then restores the chunk's selection.
   */
  void evaluate(Chunk chunk) {
    split(chunk);
    chunk.select(trueRows, trueCount);
    then.take(chunk, trueRows, trueCount);
    chunk.select(falseRows, falseCount);
    otherwise.take(chunk, falseRows, falseCount);
    restore(chunk);
  }

  private void restore(Chunk chunk) {
    chunk.select(original, originalCount);
  }
}
