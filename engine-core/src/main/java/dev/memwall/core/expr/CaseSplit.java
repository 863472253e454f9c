package dev.memwall.core.expr;

/**
 * Splits a chunk's selection into the rows where a condition holds and the rest, and puts the
 * original selection back afterwards: the mechanics of CASE.
 */
final class CaseSplit {
  final int[] trueRows = new int[Chunk.CAPACITY];
  final int[] falseRows = new int[Chunk.CAPACITY];
  int trueCount;
  int falseCount;
  private final int[] original = new int[Chunk.CAPACITY];
  private int originalCount;

  void split(Chunk chunk, FilterKernel condition) {
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
   * Evaluates {@code condition}, runs {@code then} with the chunk narrowed to the rows where it holds
   * and {@code otherwise} with the rest, then restores the chunk's selection.
   */
  void evaluate(Chunk chunk, FilterKernel condition, Branch then, Branch otherwise) {
    split(chunk, condition);
    chunk.select(trueRows, trueCount);
    then.take(chunk, trueRows, trueCount);
    chunk.select(falseRows, falseCount);
    otherwise.take(chunk, falseRows, falseCount);
    restore(chunk);
  }

  void restore(Chunk chunk) {
    chunk.select(original, originalCount);
  }
}
